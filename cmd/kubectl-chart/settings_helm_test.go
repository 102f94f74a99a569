package main

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
	"github.com/spf13/pflag"
)

func TestHelmFiles(t *testing.T) {
	home := t.TempDir()
	withHelm := t.TempDir()
	writeFiles(t, withHelm, map[string]string{
		".config/helm/repositories.yaml":      "apiVersion: \"\"\nrepositories: []\n",
		".config/helm/registry/config.json":   "{}",
		".local/share/helm/starters/s/x.yaml": "x",
	})
	ours := func(home string) helmFiles {
		return helmFiles{
			repositoryConfig: filepath.Join(home, ".config/kubectl-chart/repositories.yaml"),
			repositoryCache:  filepath.Join(home, ".cache/kubectl-chart/repository"),
			registryConfig:   filepath.Join(home, ".config/kubectl-chart/registry/config.json"),
		}
	}
	helms := func(home string) helmFiles {
		return helmFiles{
			repositoryConfig: filepath.Join(home, ".config/helm/repositories.yaml"),
			repositoryCache:  filepath.Join(home, ".cache/helm/repository"),
			registryConfig:   filepath.Join(home, ".config/helm/registry/config.json"),
		}
	}
	tests := map[string]struct {
		home string
		env  map[string]string
		want helmFiles
	}{
		"no Helm files: ours":          {home: home, want: ours(home)},
		"Helm's files exist: shared":   {home: withHelm, want: helms(withHelm)},
		"Helm's home named: Helm's":    {home: home, env: map[string]string{"HELM_CONFIG_HOME": "/h/c", "HELM_CACHE_HOME": "/h/k"}, want: helmFiles{repositoryConfig: "/h/c/repositories.yaml", repositoryCache: "/h/k/repository", registryConfig: "/h/c/registry/config.json"}},
		"Helm's variables":             {home: home, env: map[string]string{"HELM_REPOSITORY_CONFIG": "/r.yaml", "HELM_REPOSITORY_CACHE": "/rc", "HELM_REGISTRY_CONFIG": "/reg.json"}, want: helmFiles{repositoryConfig: "/r.yaml", repositoryCache: "/rc", registryConfig: "/reg.json"}},
		"Helm's config, Helm's cache":  {home: home, env: map[string]string{"HELM_REPOSITORY_CONFIG": "/r.yaml"}, want: helmFiles{repositoryConfig: "/r.yaml", repositoryCache: filepath.Join(home, ".cache/helm/repository"), registryConfig: ours(home).registryConfig}},
		"ours win over Helm's":         {home: withHelm, env: map[string]string{"HELM_REPOSITORY_CONFIG": "/r.yaml", "KUBECTL_CHART_REPOSITORY_CONFIG": "/o.yaml", "KUBECTL_CHART_REPOSITORY_CACHE": "/oc", "KUBECTL_CHART_REGISTRY_CONFIG": "/oreg.json"}, want: helmFiles{repositoryConfig: "/o.yaml", repositoryCache: "/oc", registryConfig: "/oreg.json"}},
		"XDG directories are followed": {home: home, env: map[string]string{"XDG_CONFIG_HOME": "/x/c", "XDG_CACHE_HOME": "/x/k"}, want: helmFiles{repositoryConfig: "/x/c/kubectl-chart/repositories.yaml", repositoryCache: "/x/k/kubectl-chart/repository", registryConfig: "/x/c/kubectl-chart/registry/config.json"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := loadSettings(func(k string) string { return tc.env[k] }, func() (string, error) { return tc.home, nil })
			got := helmFiles{repositoryConfig: s.files.repositoryConfig, repositoryCache: s.files.repositoryCache, registryConfig: s.files.registryConfig}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("files\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestHelmLimits(t *testing.T) {
	tests := map[string]struct {
		env  map[string]string
		want helmLimits
	}{
		"defaults":            {want: helmLimits{maxHistory: 10, burstLimit: 100}},
		"set":                 {env: map[string]string{"HELM_MAX_HISTORY": "3", "HELM_BURST_LIMIT": "7", "HELM_QPS": "2.5", "HELM_DEBUG": "true"}, want: helmLimits{maxHistory: 3, burstLimit: 7, qps: 2.5, debug: true}},
		"unreadable: as Helm": {env: map[string]string{"HELM_MAX_HISTORY": "x", "HELM_BURST_LIMIT": "", "HELM_QPS": "fast", "HELM_DEBUG": "yes"}, want: helmLimits{maxHistory: 10, burstLimit: 100}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := loadHelmLimits(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("limits %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Helm's environment and global flags reach the commands' own flags: the
// repository files, --history-max and --compat.
func TestSettingsReachCommands(t *testing.T) {
	isolatePlugins(t)
	t.Setenv("HELM_REPOSITORY_CONFIG", "/env/repositories.yaml")
	t.Setenv("HELM_MAX_HISTORY", "4")
	t.Setenv(dialect.EnvVar, "helm3")
	tests := map[string]struct {
		args []string
		flag string
		want string
	}{
		"repo list takes $HELM_REPOSITORY_CONFIG": {args: []string{"repo", "list"}, flag: "repository-config", want: "/env/repositories.yaml"},
		"install takes it too":                    {args: []string{"install", "web", "c"}, flag: "repository-config", want: "/env/repositories.yaml"},
		"the global flag wins":                    {args: []string{"--repository-config", "/flag.yaml", "repo", "list"}, flag: "repository-config", want: "/flag.yaml"},
		"after the command too":                   {args: []string{"list", "--repository-config", "/flag.yaml"}, flag: "repository-config", want: "/flag.yaml"},
		"upgrade's --history-max":                 {args: []string{"upgrade", "web", "c"}, flag: "history-max", want: "4"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := NewRootCmd(genericiooptions.NewTestIOStreamsDiscard(), BuildInfo{Version: "test"})
			cmd, rest, err := root.Find(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatal(err)
			}
			if got := cmd.Flag(tc.flag).Value.String(); got != tc.want {
				t.Errorf("--%s = %q, want %q", tc.flag, got, tc.want)
			}
		})
	}
}

// `env` prints what Helm's prints, for each dialect's Helm, but HELM_BIN.
func TestEnvLikeHelms(t *testing.T) {
	peers := map[dialect.Dialect]string{dialect.Helm4: prereq.HelmPeer(t, "v4.3.1"), dialect.Helm3: prereq.HelmPeer(t, "v3.22.0")}
	isolatePlugins(t)
	home := t.TempDir()
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "KUBECONFIG"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	writeFiles(t, home, map[string]string{".config/helm/repositories.yaml": "apiVersion: \"\"\nrepositories: []\n", ".config/helm/registry/config.json": "{}"})
	t.Setenv("HELM_NAMESPACE", "prod")
	t.Setenv("HELM_MAX_HISTORY", "3")
	for d, peer := range peers {
		t.Run(string(d), func(t *testing.T) {
			want, err := exec.Command(peer, "env", "--kube-context", "east").Output()
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := runRoot(t, "env", "--compat", string(d), "--kube-context", "east")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := dropBin(out), dropBin(string(want)); got != want {
				t.Errorf("env:\n%s\nHelm's:\n%s", got, want)
			}
			one, _, err := runRoot(t, "env", "HELM_MAX_HISTORY")
			if err != nil || one != "3\n" {
				t.Errorf("env HELM_MAX_HISTORY = %q, %v", one, err)
			}
		})
	}
}

func dropBin(env string) string {
	var keep []string
	for _, l := range strings.Split(env, "\n") {
		if !strings.HasPrefix(l, "HELM_BIN=") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// The rest config every client starts from carries Helm's limits: its
// defaults, $HELM_BURST_LIMIT and $HELM_QPS, and the flags over them.
func TestRESTConfigLimits(t *testing.T) {
	tests := map[string]struct {
		env   map[string]string
		args  []string
		qps   float32
		burst int
	}{
		"Helm's defaults":         {burst: 100},
		"environment":             {env: map[string]string{"HELM_BURST_LIMIT": "7", "HELM_QPS": "2.5"}, qps: 2.5, burst: 7},
		"flags over environment":  {env: map[string]string{"HELM_BURST_LIMIT": "7", "HELM_QPS": "2.5"}, args: []string{"--burst-limit", "300", "--qps", "50"}, qps: 50, burst: 300},
		"unreadable: the default": {env: map[string]string{"HELM_BURST_LIMIT": "many", "HELM_QPS": "fast"}, burst: 100},
		"negative rate: no limit": {args: []string{"--qps", "-1"}, qps: -1, burst: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := loadSettings(func(k string) string { return tc.env[k] }, func() (string, error) { return t.TempDir(), nil })
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			addGlobalFlags(fs, &s)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			in := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 0, Burst: 0}
			got := s.withLimits(in)
			if got.QPS != tc.qps || got.Burst != tc.burst {
				t.Errorf("QPS %v, burst %d; want %v, %d", got.QPS, got.Burst, tc.qps, tc.burst)
			}
			if in.Burst != 0 || got.Host != in.Host {
				t.Error("withLimits changed its input or lost the config")
			}
		})
	}
}
