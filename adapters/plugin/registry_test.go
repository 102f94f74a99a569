package plugin

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadPrecedence(t *testing.T) {
	root := t.TempDir()
	ours := filepath.Join(root, "ours")
	helm := filepath.Join(root, "helm")
	// A Helm v3 plugin directory, unchanged: a command plugin and a downloader.
	writePlugin(t, filepath.Join(helm, "diff"), "name: diff\nversion: 3.9.0\nusage: preview upgrades\ncommand: $HELM_PLUGIN_DIR/bin/diff\n", "")
	writePlugin(t, filepath.Join(helm, "s3"), "name: s3\nversion: 0.16.0\ndownloaders:\n  - command: bin/helm-s3\n    protocols: [s3]\n", "")
	writePlugin(t, filepath.Join(helm, "labeler"), "name: labeler\nversion: 0.0.1\ntype: postrenderer/v1\ncommand: old\n", "")
	writePlugin(t, filepath.Join(ours, "labeler-dir"), goodYAML, "")
	user := filepath.Join(root, "config", "plugins.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("plugins:\n  - name: builtin\n    type: cli/v1\n    usage: mine\n    command: echo\n    dir: rel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defaults := []byte("pluginDirs:\n  - ${OURS}\n  - ${HELM}\n  - ${UNSET}\nplugins:\n  - name: builtin\n    type: cli/v1\n    usage: default\n    command: true\n  - name: kept\n    type: postrenderer/v1\n    command: cat\n")

	r, err := Load(Sources{Defaults: defaults, DefaultsName: "plugins.yaml", UserFile: user,
		Env: envOf(map[string]string{"OURS": ours, "HELM": helm})})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.All() {
		got = append(got, p.Name+":"+p.Kind()+":"+p.Summary())
	}
	want := []string{"builtin:cli/v1:mine", "diff:cli/v1:preview upgrades", "kept:postrenderer/v1:", "labeler:postrenderer/v1:", "s3:getter/v1:"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("plugins = %v, want %v", got, want)
	}
	if p, _ := r.Get("labeler"); p.Version != "0.1.0" {
		t.Errorf("labeler %s from %s: the first directory should win", p.Version, p.Source)
	}
	if p, _ := r.Get("builtin"); p.Dir != filepath.Join(filepath.Dir(user), "rel") {
		t.Errorf("builtin dir = %q, want it relative to the user's file", p.Dir)
	}
	if g, ok := r.GetterFor("S3"); !ok || g.Name != "s3" {
		t.Errorf("GetterFor(S3) = %v, %v", g, ok)
	}
}

func TestLoadErrors(t *testing.T) {
	dup := t.TempDir()
	writePlugin(t, filepath.Join(dup, "a"), "name: same\n", "")
	writePlugin(t, filepath.Join(dup, "b"), "name: same\n", "")
	tests := map[string]struct {
		defaults string
		want     string
	}{
		"unknown field":      {defaults: "plugin: []\n", want: `unknown field "plugin"`},
		"listed twice":       {defaults: "plugins:\n  - name: a\n  - name: a\n", want: `plugins[1]: plugin "a" is listed twice`},
		"bad name":           {defaults: "plugins:\n  - name: a/b\n", want: `plugins[0]: invalid plugin: name "a/b"`},
		"bad runtime":        {defaults: "plugins:\n  - name: a\n    runtime: wasm\n", want: `runtime "wasm" is not supported`},
		"two dirs, one name": {defaults: "pluginDirs: [" + dup + "]\n", want: `are named "same"`},
		"version with slash": {defaults: "plugins:\n  - name: a\n    version: 1.0.0/../../x\n", want: "must not contain path separators"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Load(Sources{Defaults: []byte(tc.defaults), DefaultsName: "plugins.yaml"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestLoadSkipsBrokenDirs: a plugin directory that does not load is skipped and
// reported, as Helm 4 skips it with a warning; the others load.
func TestLoadSkipsBrokenDirs(t *testing.T) {
	dir := t.TempDir()
	writePlugin(t, filepath.Join(dir, "good"), goodYAML, "")
	writePlugin(t, filepath.Join(dir, "nowasm"), "apiVersion: v1\ntype: cli/v1\nname: nowasm\nversion: 0.1.0\nruntime: extism/v1\n", "")
	writePlugin(t, filepath.Join(dir, "badname"), "name: a b\n", "")
	r, err := Load(Sources{Defaults: []byte("pluginDirs: [" + dir + "]\n"), DefaultsName: "plugins.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.All()) != 1 {
		t.Errorf("plugins = %v, want the good one only", r.All())
	}
	want := map[string]string{
		filepath.Join(dir, "badname", MetadataFile): `name "a b" may only contain`,
		filepath.Join(dir, "nowasm", MetadataFile):  `wasm binary missing for extism/v1 plugin: "` + filepath.Join(dir, "nowasm", WasmFile) + `"`,
	}
	if len(r.Skipped) != len(want) {
		t.Fatalf("skipped = %v, want %d", r.Skipped, len(want))
	}
	for _, sk := range r.Skipped {
		if w, ok := want[sk.File]; !ok || !strings.Contains(sk.Err.Error(), w) {
			t.Errorf("skipped %s: %v, want %q", sk.File, sk.Err, w)
		}
	}
}

func TestPlatformSelect(t *testing.T) {
	cmds := []PlatformCommand{
		{Command: "any"},
		{OS: "linux", Command: "linux"},
		{OS: "linux", Arch: "arm64", Command: "linux-arm64"},
		{OS: "windows", Command: "windows"},
		{Arch: "amd64", Command: "arch-only"},
	}
	tests := map[string]struct {
		pl   Platform
		want string
		ok   bool
	}{
		"exact":            {pl: Platform{"linux", "arm64"}, want: "linux-arm64", ok: true},
		"os only":          {pl: Platform{"linux", "amd64"}, want: "linux", ok: true},
		"case-insensitive": {pl: Platform{"Windows", "amd64"}, want: "windows", ok: true},
		"default":          {pl: Platform{"darwin", "arm64"}, want: "any", ok: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, ok := tc.pl.Select(cmds)
			if ok != tc.ok || c.Command != tc.want {
				t.Errorf("Select = %q, %v; want %q, %v", c.Command, ok, tc.want, tc.ok)
			}
		})
	}
	if _, ok := (Platform{"darwin", "arm64"}).Select(cmds[1:4]); ok {
		t.Error("no command should match darwin without a default")
	}
}

func TestPrepareExpandsAndAppends(t *testing.T) {
	r, err := Load(Sources{Env: envOf(map[string]string{"GREETING": "hi"})})
	if err != nil {
		t.Fatal(err)
	}
	p := &Plugin{Metadata: Metadata{Name: "x", PlatformCommand: []PlatformCommand{{Command: "$KUBECTL_CHART_PLUGIN_DIR/run.sh --a", Args: []string{"$GREETING", "$HELM_PLUGIN_NAME"}}}}, Dir: "/plugins/x"}
	inv, err := r.Prepare(p, Host(), []string{"--user"}, map[string]string{"HELM_NAMESPACE": "ns"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Path != "/plugins/x/run.sh" || strings.Join(inv.Args, " ") != "--a hi x --user" {
		t.Errorf("invocation = %s %v", inv.Path, inv.Args)
	}
	if !strings.Contains(strings.Join(inv.Env, " "), "HELM_NAMESPACE=ns") {
		t.Errorf("env = %v, want HELM_NAMESPACE", inv.Env)
	}
	p.IgnoreFlags = true
	inv, _ = r.Prepare(p, Host(), []string{"--user"}, nil)
	if strings.Contains(strings.Join(inv.Args, " "), "--user") {
		t.Errorf("ignoreFlags: args = %v", inv.Args)
	}
	p.PlatformCommand = []PlatformCommand{{OS: "plan9", Command: "x"}}
	if _, err := r.Prepare(p, Host(), nil, nil); err == nil || !strings.Contains(err.Error(), `plugin "x" has no command for `+runtime.GOOS) {
		t.Errorf("error = %v", err)
	}
}

func TestEnvDefaults(t *testing.T) {
	env := Env(envOf(map[string]string{"XDG_DATA_HOME": "/data"}), "/home/u")
	for k, want := range map[string]string{
		"XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/home/u/.config",
		"HELM_PLUGINS": "/data/helm/plugins", "NOPE": "",
	} {
		if got := env(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// A cli/v1 plugin runs with the user's arguments and its exit status surfaces.
func TestExecCLIPlugin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	dir := t.TempDir()
	writePlugin(t, dir, "name: hello\ntype: cli/v1\nplatformCommand:\n  - command: ${KUBECTL_CHART_PLUGIN_DIR}/run.sh\n", "#!/bin/sh\necho \"hello $* from $HELM_PLUGIN_NAME\"\n[ \"$1\" != fail ] || { echo broken >&2; exit 3; }\n")
	p, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := Load(Sources{})
	inv, err := r.Prepare(p, Host(), []string{"world"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := Exec(context.Background(), p.Name, inv, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hello world from hello\n" {
		t.Errorf("output = %q", out.String())
	}
	inv, _ = r.Prepare(p, Host(), []string{"fail"}, nil)
	err = Exec(context.Background(), p.Name, inv, nil, &out, nil)
	if err == nil || err.Error() != `plugin "hello" exited with status 3: broken` {
		t.Errorf("error = %v", err)
	}
}

func TestPrepareKeepsShellParameters(t *testing.T) {
	r, _ := Load(Sources{Env: envOf(map[string]string{"X": "x"})})
	p := &Plugin{Metadata: Metadata{Name: "k", PlatformCommand: []PlatformCommand{{Command: "sh", Args: []string{"-c", `cat > "$0/all.yaml" $@ $1 ${X}`}}}}}
	inv, err := r.Prepare(p, Host(), []string{"dir"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"-c", `cat > "$0/all.yaml" $@ $1 x`, "dir"}; strings.Join(inv.Args, "|") != strings.Join(want, "|") {
		t.Errorf("args = %q, want %q", inv.Args, want)
	}
}
