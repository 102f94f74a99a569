package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCompletionArgs(t *testing.T) {
	tests := map[string]struct {
		argv0 string
		args  []string
		want  []string
	}{
		"plain":            {argv0: "/usr/local/bin/kubectl-chart", args: []string{"template"}, want: []string{"template"}},
		"completion entry": {argv0: "/home/u/.krew/bin/kubectl_complete-chart", args: []string{"ins"}, want: []string{"__complete", "ins"}},
		"windows":          {argv0: `kubectl_complete-chart.exe`, args: []string{""}, want: []string{"__complete", ""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := completionArgs(tc.argv0, tc.args); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("completionArgs = %q, want %q", got, tc.want)
			}
		})
	}
}

// complete runs cobra's __complete and returns the candidates and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, _, err := runRoot(t, append([]string{"__complete"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var names []string
	for _, l := range lines[:len(lines)-1] {
		names = append(names, strings.SplitN(l, "\t", 2)[0])
	}
	return names, lines[len(lines)-1]
}

func TestCompletion(t *testing.T) {
	isolatePlugins(t)
	kubeconfig := filepath.Join(t.TempDir(), "config")
	writeFiles(t, filepath.Dir(kubeconfig), map[string]string{"config": `apiVersion: v1
kind: Config
clusters: [{name: dev, cluster: {server: "https://127.0.0.1:1"}}, {name: prod, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: admin, user: {}}]
contexts: [{name: dev-ctx, context: {cluster: dev, user: admin}}, {name: prod-ctx, context: {cluster: prod, user: admin}}]
current-context: dev-ctx
`})
	tests := map[string]struct {
		args      []string
		want      []string
		directive string
	}{
		"commands":        {args: []string{"te"}, want: []string{"template", "test"}, directive: ":4"},
		"plugin commands": {args: []string{"plugin", ""}, want: []string{"install", "list", "package", "run", "uninstall", "update", "verify"}, directive: ":4"},
		"shells":          {args: []string{"completion", ""}, want: []string{"bash", "fish", "powershell", "zsh"}, directive: ":4"},
		"version -o":      {args: []string{"version", "-o", ""}, want: []string{"json"}, directive: ":4"},
		"contexts":        {args: []string{"--kubeconfig", kubeconfig, "template", "--context", "p"}, want: []string{"prod-ctx"}, directive: ":4"},
		"clusters":        {args: []string{"--kubeconfig", kubeconfig, "version", "--cluster", ""}, want: []string{"dev", "prod"}, directive: ":4"},
		"template chart":  {args: []string{"template", "r", ""}, directive: ":0"},
		"values files":    {args: []string{"template", "-f", ""}, want: []string{"yaml", "yml", "json"}, directive: ":8"},
		"output-dir":      {args: []string{"template", "--output-dir", ""}, directive: ":16"},
		"post-renderers":  {args: []string{"template", "--post-renderer", "k"}, want: []string{"kustomize"}, directive: ":0"},
		"unreachable ns":  {args: []string{"--kubeconfig", kubeconfig, "template", "-n", ""}, directive: ":4"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, directive := complete(t, tc.args...)
			if !reflect.DeepEqual(got, tc.want) || directive != tc.directive {
				t.Errorf("__complete %q = %q %s, want %q %s", tc.args, got, directive, tc.want, tc.directive)
			}
		})
	}
}

func TestCompletionChartRefs(t *testing.T) {
	isolatePlugins(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"repositories.yaml":       "apiVersion: v1\nrepositories:\n  - name: stable\n    url: http://127.0.0.1:1/stable\n  - name: other\n    url: http://127.0.0.1:1/other\n",
		"cache/stable-index.yaml": "apiVersion: v1\nentries:\n  nginx:\n    - {name: nginx, version: 1.0.0, urls: [nginx-1.0.0.tgz]}\n  redis:\n    - {name: redis, version: 2.0.0, urls: [redis-2.0.0.tgz]}\n",
		"cache/other-index.yaml":  "apiVersion: v1\nentries:\n  nats:\n    - {name: nats, version: 0.1.0, urls: [nats-0.1.0.tgz]}\n",
	})
	t.Setenv("KUBECTL_CHART_REPOSITORY_CONFIG", filepath.Join(dir, "repositories.yaml"))
	t.Setenv("KUBECTL_CHART_REPOSITORY_CACHE", filepath.Join(dir, "cache"))
	tests := map[string]struct {
		args      []string
		want      []string
		directive string
	}{
		"all":          {args: []string{"template", "r", ""}, want: []string{"other/nats", "stable/nginx", "stable/redis"}, directive: ":4"},
		"prefix":       {args: []string{"template", "r", "stable/n"}, want: []string{"stable/nginx"}, directive: ":4"},
		"install":      {args: []string{"install", "r", "o"}, want: []string{"other/nats"}, directive: ":4"},
		"path":         {args: []string{"template", "r", "./"}, directive: ":0"},
		"no match":     {args: []string{"template", "r", "zzz"}, directive: ":0"},
		"install name": {args: []string{"install", ""}, directive: ":4"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, directive := complete(t, tc.args...)
			if !reflect.DeepEqual(got, tc.want) || directive != tc.directive {
				t.Errorf("__complete %q = %q %s, want %q %s", tc.args, got, directive, tc.want, tc.directive)
			}
		})
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "__start_kubectl-chart", "zsh": "#compdef kubectl-chart", "fish": "complete -c kubectl-chart",
		"powershell": "Register-ArgumentCompleter",
	} {
		t.Run(shell, func(t *testing.T) {
			out, _, err := runRoot(t, "completion", shell)
			if err != nil || !strings.Contains(out, want) {
				t.Errorf("completion %s: %v, output lacks %q", shell, err, want)
			}
		})
	}
	// An unknown shell is no subcommand: help, as Helm prints it.
	if out, _, err := runRoot(t, "completion", "tcsh"); err != nil || !strings.Contains(out, "Available Commands:") {
		t.Errorf("completion tcsh: %v, want help", err)
	}
}

func TestMain(m *testing.M) {
	// The test binary doubles as kubectl-chart for plugins that call back
	// into $HELM_BIN (see TestPluginCallsBack).
	if os.Getenv(testRunMainEnv) == "1" {
		os.Exit(run())
	}
	// Completion of namespaces must not wait on a cluster; tests use none.
	os.Exit(m.Run())
}
