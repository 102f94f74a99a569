package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// testRunMainEnv makes the test binary run as kubectl-chart.
const testRunMainEnv = "KUBECTL_CHART_TEST_RUN_MAIN"

func TestSplitPluginArgs(t *testing.T) {
	tests := map[string]struct {
		args []string
		want pluginArgs
	}{
		"plain": {args: []string{"upgrade", "web", "--flag"}, want: pluginArgs{rest: []string{"upgrade", "web", "--flag"}}},
		"helm's names": {
			args: []string{"a", "-n", "prod", "--kube-context=ctx", "--debug", "b", "--kube-insecure-skip-tls-verify"},
			want: pluginArgs{global: []string{"-n=prod", "--kube-context=ctx", "--debug", "--kube-insecure-skip-tls-verify"}, rest: []string{"a", "b"}},
		},
		"kubectl's names": {
			args: []string{"--context", "c", "--server=https://x", "--as", "u", "x"},
			want: pluginArgs{global: []string{"--context=c", "--server=https://x", "--as=u"}, rest: []string{"x"}},
		},
		"helm's files": {
			args: []string{"--registry-config", "r.json", "--repository-config=repos.yaml", "--repository-cache", "cache"},
			want: pluginArgs{global: []string{"--registry-config=r.json", "--repository-config=repos.yaml", "--repository-cache=cache"}},
		},
		"flags helm passes on": {
			args: []string{"--cluster", "c", "--burst-limit", "5", "-nprod"},
			want: pluginArgs{rest: []string{"--cluster", "c", "--burst-limit", "5", "-nprod"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := splitPluginArgs(tc.args); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// installTestPlugin installs testdata/plugins/NAME.
func installTestPlugin(t *testing.T, name string) {
	t.Helper()
	if _, _, err := runRoot(t, "plugin", "install", filepath.Join("testdata", "plugins", name), "--verify=false"); err != nil {
		t.Fatal(err)
	}
}

// A plugin gets Helm's environment, not our global flags, and its exit status
// is ours.
func TestPluginEnvironmentAndExitStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	dir := isolatePlugins(t)
	t.Setenv("HELM_CONFIG_HOME", "")
	t.Setenv("HELM_CACHE_HOME", "")
	// The default case's cache is $HOME/.cache, whatever the caller's $XDG_CACHE_HOME.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HELM_NAMESPACE", "")
	t.Setenv("HELM_KUBECONTEXT", "")
	t.Setenv("HELM_MAX_HISTORY", "")
	installTestPlugin(t, "envprint")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	writeFiles(t, filepath.Dir(kubeconfig), map[string]string{"kubeconfig": `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts:
  - {name: ctx, context: {cluster: c, user: u, namespace: from-kubeconfig}}
  - {name: other, context: {cluster: c, user: u}}
current-context: other
`})
	home := os.Getenv("HOME")
	tests := map[string]struct {
		args []string
		want []string
	}{
		"helm's flags": {
			args: []string{"--kubeconfig", kubeconfig, "a", "-n", "prod", "--kube-context", "ctx", "--debug", "b", "--registry-config", "/r.json"},
			want: []string{"ARGS: a b", "HELM_NAMESPACE=prod", "HELM_KUBECONTEXT=ctx", "HELM_DEBUG=true", "KUBECONFIG=" + kubeconfig, "HELM_REGISTRY_CONFIG=/r.json"},
		},
		"kubectl's flags": {
			args: []string{"--kubeconfig=" + kubeconfig, "--context=ctx", "--server", "https://127.0.0.1:2", "x", "--kube-insecure-skip-tls-verify"},
			want: []string{"ARGS: x", "HELM_NAMESPACE=from-kubeconfig", "HELM_KUBECONTEXT=ctx", "HELM_KUBEAPISERVER=https://127.0.0.1:2", "HELM_KUBEINSECURE_SKIP_TLS_VERIFY=true", "HELM_DEBUG=false"},
		},
		"defaults": {
			args: []string{"--kubeconfig", kubeconfig},
			want: []string{"ARGS: \n", "HELM_NAMESPACE=default", "HELM_KUBECONTEXT=\n", "HELM_MAX_HISTORY=10", "HELM_BURST_LIMIT=100", "HELM_QPS=0.00",
				"HELM_BIN=" + exe, "HELM_PLUGIN_NAME=envprint", "HELM_PLUGIN_DIR=" + filepath.Join(dir, "envprint"), "HELM_PLUGINS=" + os.Getenv("HELM_PLUGINS"),
				"HELM_CONFIG_HOME=" + filepath.Join(home, "config", "helm"), "HELM_CACHE_HOME=" + filepath.Join(home, ".cache", "helm"),
				"HELM_KUBEINSECURE_SKIP_TLS_VERIFY=false"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, append([]string{"envprint"}, tc.args...)...)
			var exit *exitCodeError
			if !errors.As(err, &exit) || exit.code != 7 || exit.Error() != `plugin "envprint" exited with error` {
				t.Fatalf("error = %#v, want exit status 7 and Helm's words", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// Reachable as `plugin run` too.
	if _, _, err := runRoot(t, "plugin", "run", "envprint"); err == nil {
		t.Error("plugin run envprint: no error")
	}
}

// A plugin calling back into $HELM_BIN reaches this program, which reads the
// HELM_NAMESPACE it was given.
func TestPluginCallsBack(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	isolatePlugins(t)
	t.Setenv("HELM_NAMESPACE", "")
	installTestPlugin(t, "callback")
	chart := filepath.Join(t.TempDir(), "ns")
	writeFiles(t, chart, map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: ns\nversion: 0.1.0\n",
		"templates/ns.yaml": "namespace: {{ .Release.Namespace }}\n",
	})
	t.Setenv(testRunMainEnv, "1")
	out, _, err := runRoot(t, "callback", "-n", "prod", chart)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "namespace: prod\n") {
		t.Errorf("output:\n%s\nwant the namespace from HELM_NAMESPACE", out)
	}
}

// A plugin named like a built-in command runs through `plugin run`, and
// `plugin list` says so.
func TestPluginNamedLikeBuiltin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	isolatePlugins(t)
	src := filepath.Join(t.TempDir(), "diff")
	writeFiles(t, src, map[string]string{
		"plugin.yaml": "name: diff\nversion: 3.9.0\nusage: helm-diff\ncommand: $HELM_PLUGIN_DIR/diff.sh\n",
		"diff.sh":     "#!/bin/sh\necho \"helm-diff $*\"\n",
	})
	if _, _, err := runRoot(t, "plugin", "install", src); err != nil {
		t.Fatal(err)
	}
	out, _, err := runRoot(t, "plugin", "run", "diff", "upgrade", "web", "-n", "x")
	if err != nil || out != "helm-diff upgrade web\n" {
		t.Errorf("plugin run diff: %q, %v", out, err)
	}
	if out, _, _ := runRoot(t, "diff", "--help"); strings.HasPrefix(out, "helm-diff ") || !strings.Contains(out, "kubectl chart diff [command]") {
		t.Errorf("the built-in diff was shadowed:\n%s", out)
	}
	_, errOut, err := runRoot(t, "plugin", "list")
	if err != nil || !strings.Contains(errOut, "kubectl chart plugin run diff") {
		t.Errorf("plugin list: stderr %q, %v", errOut, err)
	}
	if _, _, err := runRoot(t, "plugin", "run", "nope"); err == nil || err.Error() != `plugin "nope" not found` {
		t.Errorf("plugin run nope: %v", err)
	}
}

// `plugin install` of a git repository and `plugin update` (a file:// remote;
// adapters/plugin tests a loopback git server).
func TestPluginInstallFromGitAndUpdate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	prereq.Command(t, "git")
	isolatePlugins(t)
	work := filepath.Join(t.TempDir(), "work")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func(version string) {
		t.Helper()
		writeFiles(t, work, map[string]string{"plugin.yaml": "name: fromgit\nversion: " + version + "\ncommand: $HELM_PLUGIN_DIR/run.sh\nhooks:\n  update: echo update hook of " + version + "\n", "run.sh": "#!/bin/sh\necho " + version + "\n"})
		git("add", "-A")
		git("commit", "--quiet", "-m", version)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "--quiet")
	commit("0.1.0")
	url := "file://" + work
	if _, _, err := runRoot(t, "plugin", "install", url); err == nil || err.Error() != "plugin source does not support verification. Use --verify=false to skip verification" {
		t.Fatalf("install with verification: %v", err)
	}
	if out, _, err := runRoot(t, "plugin", "install", url, "--verify=false"); err != nil || out != "WARNING: Skipping plugin signature verification\nInstalled plugin: fromgit\n" {
		t.Fatalf("install: %q, %v", out, err)
	}
	commit("0.2.0")
	// The updated plugin's update hook runs, as in Helm.
	if out, _, err := runRoot(t, "plugin", "update", "fromgit"); err != nil || out != "update hook of 0.2.0\nUpdated plugin: fromgit\n" {
		t.Fatalf("update: %q, %v", out, err)
	}
	if out, _, err := runRoot(t, "fromgit"); err != nil || out != "0.2.0\n" {
		t.Errorf("after update: %q, %v", out, err)
	}
	_, _, err := runRoot(t, "plugin", "update", "nope", "envprint")
	if err == nil || err.Error() != "plugin: nope not found\nplugin: envprint not found" {
		t.Errorf("update of missing plugins: %v", err)
	}
	installTestPlugin(t, "envprint")
	_, _, err = runRoot(t, "plugin", "update", "envprint")
	if err == nil || err.Error() != "failed to update plugin envprint, got error (cannot get information about plugin source)" {
		t.Errorf("update of a plugin not from git: %v", err)
	}
}
