package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// isolatePlugins points every plugin location at fresh directories and returns
// the install directory.
func isolatePlugins(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("HELM_PLUGINS", filepath.Join(home, "helm-plugins"))
	t.Setenv("HELM_DATA_HOME", "")
	dir := filepath.Join(home, "plugins")
	t.Setenv("KUBECTL_CHART_PLUGINS", dir)
	return dir
}

// runRoot runs the root command, built for args as main builds it, with args
// and returns stdout, stderr and the error.
func runRoot(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := newRootCmdFor(streams, BuildInfo{Version: "v9.9.9", Commit: "abc"}, args)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errOut)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// labelerPlugin is a postrenderer/v1 plugin: a script that adds a label.
var labelerPlugin = map[string]string{
	"plugin.yaml": "name: labeler\nversion: 0.1.0\ntype: postrenderer/v1\nruntime: subprocess\nusage: add a label\nplatformCommand:\n  - command: ${KUBECTL_CHART_PLUGIN_DIR}/label.sh\n",
	"label.sh":    "#!/bin/sh\nsed 's/^metadata:$/metadata:\\n  labels:\\n    post-rendered: \"'\"${1:-yes}\"'\"/'\n",
}

func testChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	writeFiles(t, dir, map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: b\n",
		"templates/hook.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hook\n  annotations:\n    helm.sh/hook: pre-install\n",
	})
	return dir
}

func TestTemplatePostRenderer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	isolatePlugins(t)
	src := filepath.Join(t.TempDir(), "labeler")
	writeFiles(t, src, labelerPlugin)
	if out, _, err := runRoot(t, "plugin", "install", src); err != nil || out != "Installing plugin from local directory (development mode)\nInstalled plugin: labeler\n" {
		t.Fatalf("install: %q, %v", out, err)
	}
	chart := testChart(t)
	plain, _, err := runRoot(t, "template", "r", chart)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain, "post-rendered") {
		t.Fatalf("label without a post-renderer:\n%s", plain)
	}
	tests := map[string]struct {
		args    []string
		want    string
		wantErr string
	}{
		"plugin":       {args: []string{"--post-renderer", "labeler"}, want: "  labels:\n    post-rendered: \"yes\"\n"},
		"with args":    {args: []string{"--post-renderer", "labeler", "--post-renderer-args", "v2"}, want: "post-rendered: \"v2\""},
		"helm3 plugin": {args: []string{"--post-renderer", "labeler", "--compat", "helm3"}, want: "post-rendered: \"yes\""},
		"helm3 path":   {args: []string{"--post-renderer", filepath.Join(src, "label.sh"), "--post-renderer-args", "p", "--compat", "helm3"}, want: "post-rendered: \"p\""},
		"helm4 path":   {args: []string{"--post-renderer", "/bin/cat"}, wantErr: `invalid argument "/bin/cat" for "--post-renderer" flag: plugin: {Name:/bin/cat Type:postrenderer/v1} not found`},
		"missing":      {args: []string{"--post-renderer", "nope"}, wantErr: `invalid argument "nope" for "--post-renderer" flag: plugin: {Name:nope Type:postrenderer/v1} not found`},
		"helm3 missing": {args: []string{"--post-renderer", "nope", "--compat", "helm3"},
			wantErr: `invalid argument "nope" for "--post-renderer" flag: unable to find binary at nope: exec: "nope": executable file not found in $PATH`},
		"args only": {args: []string{"--post-renderer-args", "x"}, wantErr: "--post-renderer-args needs --post-renderer"},
		"failing":   {args: []string{"--post-renderer", "false", "--compat", "helm3"}, wantErr: "error while running post render on files: error while running command"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, append([]string{"template", "r", chart}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output:\n%s\nwant it to contain %q", out, tc.want)
			}
			// Helm 4 post-renders hooks too, Helm 3 does not.
			helm3 := slices.Contains(tc.args, "helm3")
			if hook := out[strings.Index(out, "# Source: demo/templates/hook.yaml"):]; strings.Contains(hook, "post-rendered") == helm3 {
				t.Errorf("hook post-rendered: %t, want %t:\n%s", !helm3, !helm3, hook)
			}
		})
	}
}

// The built-in kustomize post-renderer runs kubectl's kustomize over an overlay.
func TestTemplateBuiltinKustomize(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	// The kubectl the end-to-end tests use (make peers builds it), first on $PATH.
	kubectl := prereq.Tool(t, "kubectl", "v1.36.3")
	t.Setenv("PATH", filepath.Dir(kubectl)+string(os.PathListSeparator)+os.Getenv("PATH"))
	isolatePlugins(t)
	overlay := t.TempDir()
	writeFiles(t, overlay, map[string]string{
		"kustomization.yaml": "resources: [all.yaml]\ncommonLabels:\n  team: blue\n",
	})
	out, _, err := runRoot(t, "template", "r", testChart(t), "--post-renderer", "kustomize", "--post-renderer-args", overlay)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "team: blue") {
		t.Errorf("output:\n%s\nwant the kustomization's label", out)
	}
}

func TestPluginCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	isolatePlugins(t)
	src := filepath.Join(t.TempDir(), "hello")
	writeFiles(t, src, map[string]string{
		"plugin.yaml": "name: hello\nversion: 1.0.0\nusage: say hello\ncommand: $HELM_PLUGIN_DIR/hello.sh\n",
		"hello.sh":    "#!/bin/sh\necho \"hello $* ns=$HELM_NAMESPACE\"\n",
	})
	if _, _, err := runRoot(t, "plugin", "install", src); err != nil {
		t.Fatal(err)
	}
	// A user entry in plugins.yaml, shadowing nothing.
	writeFiles(t, os.Getenv("XDG_CONFIG_HOME"), map[string]string{
		"kubectl-chart/plugins.yaml": "plugins:\n  - name: echo-args\n    type: cli/v1\n    usage: echo\n    command: echo\n  - name: template\n    type: cli/v1\n    command: echo shadow\n",
	})
	list, _, err := runRoot(t, "plugin", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NAME ", "hello ", "1.0.0", "cli/v1", "unsigned", "kustomize", "postrenderer/v1", "echo-args"} {
		if !strings.Contains(list, want) {
			t.Errorf("plugin list:\n%s\nwant %q", list, want)
		}
	}
	out, _, err := runRoot(t, "hello", "world", "--flag")
	if err != nil || out != "hello world --flag ns=default\n" {
		t.Errorf("kubectl chart hello: %q, %v", out, err)
	}
	// Plugins never shadow built-in commands.
	if out, _, _ := runRoot(t, "template", "--help"); strings.Contains(out, "shadow") || !strings.Contains(out, "Render chart templates") {
		t.Errorf("template was shadowed:\n%s", out)
	}
	if _, _, err := runRoot(t, "plugin", "install", src); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("reinstall: %v", err)
	}
	if out, _, err := runRoot(t, "plugin", "uninstall", "hello"); err != nil || out != "Uninstalled plugin: hello\n" {
		t.Errorf("uninstall: %q, %v", out, err)
	}
	if _, _, err := runRoot(t, "plugin", "uninstall", "echo-args"); err == nil || !strings.Contains(err.Error(), "no plugin \"echo-args\" in") {
		t.Errorf("uninstall of a plugins.yaml entry: %v", err)
	}
	// A broken user file: plugin list says why; other commands keep working.
	writeFiles(t, os.Getenv("XDG_CONFIG_HOME"), map[string]string{"kubectl-chart/plugins.yaml": "plugins: [{name: a/b}]\n"})
	if _, _, err := runRoot(t, "plugin", "list"); err == nil || !strings.Contains(err.Error(), `name "a/b"`) {
		t.Errorf("list with a broken file: %v", err)
	}
	if _, _, err := runRoot(t, "version"); err != nil {
		t.Errorf("version with a broken plugins.yaml: %v", err)
	}
}

func TestPluginInstallRefusesHostileArchive(t *testing.T) {
	isolatePlugins(t)
	_, _, err := runRoot(t, "plugin", "install", filepath.Join("testdata", "traversal.tgz"), "--verify=false")
	if err == nil || !strings.Contains(err.Error(), "escapes the plugin directory") {
		t.Errorf("error = %v", err)
	}
}

// A getter plugin serves chart references with its URL scheme.
func TestTemplateWithGetterPlugin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	isolatePlugins(t)
	chart := testChart(t)
	archive := filepath.Join(t.TempDir(), "demo-0.1.0.tgz")
	if out, err := exec.Command("tar", "-czf", archive, "-C", filepath.Dir(chart), "demo").CombinedOutput(); err != nil {
		t.Skipf("tar: %v %s", err, out)
	}
	src := filepath.Join(t.TempDir(), "bucket")
	writeFiles(t, src, map[string]string{
		// Helm's downloader protocol: COMMAND CERTFILE KEYFILE CAFILE URL.
		"plugin.yaml": "name: bucket\nversion: 0.1.0\ndownloaders:\n  - command: get.sh\n    protocols: [bucket]\n",
		"get.sh":      "#!/bin/sh\n[ \"$4\" = bucket://charts/demo-0.1.0.tgz ] || { echo \"no such object: $4\" >&2; exit 1; }\ncat " + archive + "\n",
	})
	if _, _, err := runRoot(t, "plugin", "install", src); err != nil {
		t.Fatal(err)
	}
	out, _, err := runRoot(t, "template", "r", "bucket://charts/demo-0.1.0.tgz")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "# Source: demo/templates/cm.yaml") {
		t.Errorf("output:\n%s", out)
	}
	if _, _, err := runRoot(t, "template", "r", "bucket://charts/nope.tgz"); err == nil || !strings.Contains(err.Error(), "no such object: bucket://charts/nope.tgz") {
		t.Errorf("error = %v", err)
	}
}

// Helm 3 has no plugin package or plugin verify: in its dialect they are
// unknown subcommands of plugin, which prints its help as Helm 3 does; in
// Helm 4's they are commands.
func TestPluginCommandsPerDialect(t *testing.T) {
	for _, sub := range []string{"package", "verify"} {
		for _, compat := range []string{"helm3", "helm4"} {
			t.Run(compat+" "+sub, func(t *testing.T) {
				isolatePlugins(t)
				t.Setenv("KUBECTL_CHART_COMPAT", compat)
				out, _, err := runRoot(t, "plugin", sub, "no-such")
				help := err == nil && strings.Contains(out, "Available Commands:")
				if help != (compat == "helm3") {
					t.Errorf("error = %v, output:\n%s", err, out)
				}
			})
		}
	}
}

// Installed as helm, plugin list is Helm's: only plugins in directories (an
// empty list is Helm's header alone), none of the built-in registry's; as
// kubectl chart the built-in ones are rows too.
func TestPluginListAsHelm(t *testing.T) {
	for name, tc := range map[string]struct {
		asHelm bool
		want   string
	}{
		"helm":          {asHelm: true, want: "NAME\tVERSION\tTYPE\tAPIVERSION\tPROVENANCE\tSOURCE\n"},
		"kubectl chart": {want: "kustomize"},
	} {
		t.Run(name, func(t *testing.T) {
			isolatePlugins(t)
			var out, errOut bytes.Buffer
			args := []string{"plugin", "list"}
			root := newRootCmdFor(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, BuildInfo{Version: "v9.9.9", AsHelm: tc.asHelm}, args)
			root.SetArgs(args)
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			if tc.asHelm && out.String() != tc.want || !tc.asHelm && !strings.Contains(out.String(), tc.want) {
				t.Errorf("stdout = %q, want %q", out.String(), tc.want)
			}
		})
	}
}
