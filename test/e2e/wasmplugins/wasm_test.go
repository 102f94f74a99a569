//go:build e2e

package wasmplugins

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm/wasmtest"
)

// runtimeAddress is the address of Helm's plugin runtime, which Helm prints in
// a getter's error; it differs between runs, so it is not compared.
var runtimeAddress = regexp.MustCompile(`RuntimeExtismV1=&\{map\[\] 0x[0-9a-f]+\}`)

// TestSideBySide runs each case through Helm v4.3.1 and kubectl chart
// (installed as helm) and compares stdout, stderr and the exit status.
func TestSideBySide(t *testing.T) {
	helm := helmPeer(t)
	work := t.TempDir()
	plugins := filepath.Join(work, "plugins")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("body of " + r.URL.Path))
	}))
	defer srv.Close()
	writePlugin(t, plugins, "wasmcli", "cli/v1", "cli", `config:
  shortHelp: a Wasm command
runtimeConfig:
  memory:
    maxPages: 300
    maxVarBytes: 200
    maxHttpResponseBytes: 16
  config:
    greeting: hi
  allowedHosts: ["127.0.0.1"]
  fileSystem:
    createTempDir: true
  timeout: 500
`)
	writePlugin(t, plugins, "wasmentry", "cli/v1", "cli", "runtimeConfig:\n  entryFuncName: other_entry\n")
	writePlugin(t, plugins, "wasmhostfn", "cli/v1", "cli", "runtimeConfig:\n  hostFunctions: [kube_get]\n")
	writePlugin(t, plugins, "wasmget", "getter/v1", "getter", "config:\n  protocols: [wasm]\nruntimeConfig: {}\n")
	writePlugin(t, plugins, "wasmpost", "postrenderer/v1", "postrenderer", "runtimeConfig: {}\n")
	ourHelm := helmLink(t, work)
	if err := os.CopyFS(filepath.Join(work, "hello"), os.DirFS(wasmtest.Chart(t))); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"helm-pulled", "ours-pulled"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	peer := runner{bin: helm, home: filepath.Join(work, "helm-home"), plugins: plugins}
	ours := runner{bin: ourHelm, home: filepath.Join(work, "ours-home"), plugins: plugins}

	tests := map[string]struct {
		args  []string
		stdin string
		// goDump: the plugin's own Go crash dump (addresses that move with its
		// environment's size) precedes the error; stderr is compared from "Error:".
		goDump bool
	}{
		"cli":                   {args: []string{"wasmcli", "a", "--flag", "b"}},
		"cli error set":         {args: []string{"wasmcli", "fail"}},
		"cli stdin":             {args: []string{"wasmcli", "stdin"}, stdin: "piped in\n"},
		"cli environment":       {args: []string{"wasmcli", "env", "HELM_NAMESPACE", "HELM_PLUGIN_DIR", "HELM_PLUGINS"}},
		"cli namespace flag":    {args: []string{"wasmcli", "-n", "other", "env", "HELM_NAMESPACE"}},
		"cli file not given":    {args: []string{"wasmcli", "readfile", "/etc/hostname"}},
		"cli temp dir":          {args: []string{"wasmcli", "tmp"}},
		"cli config":            {args: []string{"wasmcli", "config", "greeting"}},
		"cli var":               {args: []string{"wasmcli", "var", "10"}},
		"cli var limit":         {args: []string{"wasmcli", "var", "300"}},
		"cli host allowed":      {args: []string{"wasmcli", "http", srv.URL + "/x"}},
		"cli http limit":        {args: []string{"wasmcli", "http", srv.URL + "/a-longer-path"}},
		"cli host not allowed":  {args: []string{"wasmcli", "http", "http://127.0.0.2:1/"}},
		"cli timeout":           {args: []string{"wasmcli", "spin"}},
		"cli hs_init":           {args: []string{"wasmcli", "hsinit"}},
		"cli memory limit":      {args: []string{"wasmcli", "mem"}, goDump: true},
		"cli trap":              {args: []string{"wasmcli", "panic"}, goDump: true},
		"cli vars disabled":     {args: []string{"wasmentry"}},
		"entry function":        {args: []string{"wasmentry", "x"}},
		"unknown host function": {args: []string{"wasmhostfn"}},
		"getter values":         {args: []string{"template", "r1", "./hello", "-f", "wasm://bucket/values.yaml"}},
		"getter environment":    {args: []string{"template", "r1", "./hello", "-f", "wasm://bucket/env.yaml", "-n", "ns1"}},
		"getter values failure": {args: []string{"template", "r1", "./hello", "-f", "wasm://bucket/missing.yaml"}},
		"getter chart":          {args: []string{"template", "r1", "wasm://bucket/hello-0.1.0.tgz"}},
		"getter chart failure":  {args: []string{"template", "r1", "wasm://bucket/missing"}},
		"getter values input":   {args: []string{"template", "r1", "./hello", "-f", "wasm://bucket/echo-input.yaml"}},
		"getter chart input":    {args: []string{"template", "r1", "wasm://bucket/echo-input.tgz"}},
		"getter pull options": {args: []string{"pull", "wasm://bucket/echo-input.tgz", "--username", "u", "--password", "p",
			"--pass-credentials", "--insecure-skip-tls-verify", "--plain-http"}},
		"getter pull CA file": {args: []string{"pull", "wasm://bucket/echo-input.tgz", "--ca-file", "hello/Chart.yaml"}},
		"getter chart options": {args: []string{"template", "r1", "wasm://bucket/echo-input.tgz", "--username", "u", "--password", "p",
			"--pass-credentials", "--insecure-skip-tls-verify", "--plain-http"}},
		"post-renderer":         {args: []string{"template", "r1", "./hello", "--post-renderer", "wasmpost", "--post-renderer-args", "a"}},
		"post-renderer string":  {args: []string{"template", "r1", "./hello", "--post-renderer", "wasmpost", "--post-renderer-args", "as-string"}},
		"post-renderer no args": {args: []string{"template", "r1", "./hello", "--post-renderer", "wasmpost"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			want := peer.run(t, work, tc.stdin, tc.args...)
			got := ours.run(t, work, tc.stdin, tc.args...)
			if tc.goDump {
				got.stderr, want.stderr = fromError(got.stderr), fromError(want.stderr)
			}
			compare(t, got, want)
		})
	}
	t.Run("pull through a getter", func(t *testing.T) {
		want := peer.run(t, work, "", "pull", "wasm://bucket/hello-0.1.0.tgz", "-d", "helm-pulled")
		got := ours.run(t, work, "", "pull", "wasm://bucket/hello-0.1.0.tgz", "-d", "ours-pulled")
		compare(t, got, want)
		a, errA := os.ReadFile(filepath.Join(work, "helm-pulled", "hello-0.1.0.tgz"))
		b, errB := os.ReadFile(filepath.Join(work, "ours-pulled", "hello-0.1.0.tgz"))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("pulled archives differ: %v %v (%d and %d bytes)", errA, errB, len(a), len(b))
		}
	})
}

// fromError is stderr from its "Error:" line on.
func fromError(stderr string) string {
	if i := strings.Index(stderr, "\nError: "); i >= 0 {
		return stderr[i+1:]
	}
	return stderr
}

func compare(t *testing.T, got, want result) {
	t.Helper()
	if got.code != want.code {
		t.Errorf("exit status %d, Helm's %d", got.code, want.code)
	}
	if got.stdout != want.stdout {
		t.Errorf("stdout differs:\nours:\n%s\nHelm's:\n%s", got.stdout, want.stdout)
	}
	g, w := runtimeAddress.ReplaceAllString(got.stderr, "ADDR"), runtimeAddress.ReplaceAllString(want.stderr, "ADDR")
	if g != w {
		t.Errorf("stderr differs:\nours:\n%s\nHelm's:\n%s", g, w)
	}
}

// TestExitCode: a plugin returning a non-zero code without an error crashes
// Helm 4.3.1 (a nil error's Error, status 2); its code is our status, as Helm
// means it to be.
func TestExitCode(t *testing.T) {
	work := t.TempDir()
	plugins := filepath.Join(work, "plugins")
	writePlugin(t, plugins, "wasmcli", "cli/v1", "cli", "runtimeConfig: {}\n")
	ours := runner{bin: bin, home: filepath.Join(work, "home"), plugins: plugins}
	got := ours.run(t, work, "", "wasmcli", "exit", "3")
	if got.code != 3 || got.stderr != "exiting with 3\nError: plugin \"wasmcli\" exited with error\n" {
		t.Fatalf("got %d %q", got.code, got.stderr)
	}
	helm := runner{bin: helmPeer(t), home: filepath.Join(work, "helm-home"), plugins: plugins}
	if want := helm.run(t, work, "", "wasmcli", "exit", "3"); want.code != 2 || !strings.Contains(want.stderr, "nil pointer dereference") {
		t.Logf("Helm no longer crashes here (%d): %s", want.code, want.stderr)
	}
}

// TestBadPlugins: a malformed module is a clear error naming the plugin,
// never a crash.
func TestBadPlugins(t *testing.T) {
	tests := map[string]struct {
		write func(t *testing.T, plugins string)
		args  []string
		want  string
	}{
		"malformed module": {
			write: func(t *testing.T, plugins string) {
				writePlugin(t, plugins, "garbage", "cli/v1", "", "runtimeConfig: {}\n")
				if err := os.WriteFile(filepath.Join(plugins, "garbage", "plugin.wasm"), []byte("\x00asm\x01\x00\x00\x00\xff"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"garbage"},
			want: "Error: failed to create existing plugin: ",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			plugins := filepath.Join(work, "plugins")
			tc.write(t, plugins)
			r := runner{bin: bin, home: filepath.Join(work, "home"), plugins: plugins}
			got := r.run(t, work, "", tc.args...)
			if got.code != 1 || !strings.Contains(got.stderr, tc.want) || strings.Contains(got.stderr, "goroutine") {
				t.Fatalf("got %d %q, want status 1 and %q", got.code, got.stderr, tc.want)
			}
		})
	}
}

// TestSkippedPlugins: a plugin directory that does not load (no plugin.wasm,
// an unknown runtime) is skipped with Helm 4's warning; the others still run.
func TestSkippedPlugins(t *testing.T) {
	work := t.TempDir()
	plugins := filepath.Join(work, "plugins")
	writePlugin(t, plugins, "nowasm", "cli/v1", "", "runtimeConfig: {}\n")
	writePlugin(t, plugins, "wasmcli", "cli/v1", "cli", "runtimeConfig: {}\n")
	peer := runner{bin: helmPeer(t), home: filepath.Join(work, "helm-home"), plugins: plugins}
	ours := runner{bin: helmLink(t, work), home: filepath.Join(work, "ours-home"), plugins: plugins}
	want := peer.run(t, work, "", "wasmcli", "a")
	if !strings.Contains(want.stderr, `level=WARN msg="failed to load plugin (ignoring)"`) {
		t.Fatalf("Helm no longer warns: %q", want.stderr)
	}
	compare(t, ours.run(t, work, "", "wasmcli", "a"), want)

	odd := filepath.Join(plugins, "odd")
	if err := os.MkdirAll(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	y := "apiVersion: v1\ntype: cli/v1\nname: odd\nversion: 0.1.0\nruntime: wasmtime/v9\n"
	if err := os.WriteFile(filepath.Join(odd, "plugin.yaml"), []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runner{bin: bin, home: filepath.Join(work, "home"), plugins: plugins}.run(t, work, "", "wasmcli", "a")
	warn := `level=WARN msg="failed to load plugin (ignoring)" plugin_yaml=` + filepath.Join(odd, "plugin.yaml") + ` error=`
	if got.code != 0 || !strings.Contains(got.stderr, warn) || !strings.Contains(got.stderr, `runtime \"wasmtime/v9\" is not supported`) {
		t.Fatalf("got %d %q, want status 0 and a warning naming %s", got.code, got.stderr, odd)
	}
}

// helmLink is our binary linked as helm under work.
func helmLink(t *testing.T, work string) string {
	t.Helper()
	link := filepath.Join(work, "bin", "helm")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// TestSubprocessGetterFailure: a Helm 4 subprocess getter (getter/v1) runs
// inside its plugin directory with the download's credentials in its
// environment, and when it fails its stderr passes through and the error
// quotes the plugin, as in Helm 4 (beside the Wasm getter's).
func TestSubprocessGetterFailure(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, "plugins", "sget")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	y := "apiVersion: v1\ntype: getter/v1\nname: sget\nversion: 0.1.0\nruntime: subprocess\nconfig:\n  protocols: [sg]\n" +
		"runtimeConfig:\n  protocolCommands:\n    - protocols: [sg]\n      platformCommand:\n        - command: get.sh\n          args: [a]\n"
	if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "get.sh"), []byte("#!/bin/sh\necho \"failing $1 [$HELM_PLUGIN_USERNAME] [$HELM_PLUGIN_PASSWORD] $HELM_PLUGIN_PASS_CREDENTIALS_ALL\" >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(work, "hello"), os.DirFS(wasmtest.Chart(t))); err != nil {
		t.Fatal(err)
	}
	plugins := filepath.Join(work, "plugins")
	peer := runner{bin: helmPeer(t), home: filepath.Join(work, "helm-home"), plugins: plugins}
	ours := runner{bin: helmLink(t, work), home: filepath.Join(work, "ours-home"), plugins: plugins}
	for name, args := range map[string][]string{
		"values": {"template", "r1", "./hello", "-f", "sg://bucket/values.yaml"},
		"chart":  {"template", "r1", "sg://bucket/hello-0.1.0.tgz"},
		"pull":   {"pull", "sg://bucket/hello-0.1.0.tgz", "--username", "u", "--password", "p", "--pass-credentials"},
	} {
		t.Run(name, func(t *testing.T) {
			want := peer.run(t, work, "", args...)
			if !strings.HasPrefix(want.stderr, "failing a [") || !strings.Contains(want.stderr, "\nError: plugin &{") {
				t.Fatalf("Helm's stderr changed: %q", want.stderr)
			}
			compare(t, ours.run(t, work, "", args...), want)
		})
	}
}
