package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// `plugin list` prints what each dialect's Helm prints for the same plugin
// directory, byte for byte: Helm 3's name, version and description; Helm 4's
// type, plugin.yaml apiVersion, provenance (a linked directory, an archive
// kept with or without a .prov) and source URL. Real Helm installs the
// plugins; ours lists Helm's directory.
func TestPluginListLikeHelm(t *testing.T) {
	peers := map[dialect.Dialect]string{dialect.Helm4: prereq.HelmPeer(t, "v4.3.1"), dialect.Helm3: prereq.HelmPeer(t, "v3.22.0")}
	secret, public := testKeyrings(t, "Alice")
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"alpha/plugin.yaml": "name: alpha\nversion: 1.2.3\nusage: the usage\ndescription: the first plugin, described\ncommand: $HELM_PLUGIN_DIR/run.sh\n",
		"beta/plugin.yaml":  "name: beta\nversion: 0.1.0\ndescription: a getter\ncommand: $HELM_PLUGIN_DIR/get.sh\ndownloaders:\n  - command: get.sh\n    protocols: [beta]\n",
		"gamma/plugin.yaml": "apiVersion: v1\nname: gamma\nversion: 2.0.0\ntype: cli/v1\nruntime: subprocess\nsourceURL: https://example.com/gamma\nconfig:\n  shortHelp: a v1 plugin\nruntimeConfig:\n  platformCommand: [{command: run.sh}]\n",
		"delta/plugin.yaml": "name: delta\nversion: 0.3.0\ndescription: signed\ncommand: $HELM_PLUGIN_DIR/run.sh\n",
		"eps/plugin.yaml":   "name: eps\nversion: 0.4.0\ndescription: not signed\ncommand: $HELM_PLUGIN_DIR/run.sh\n",
	})
	archives := t.TempDir()
	isolatePlugins(t)
	for _, args := range [][]string{
		{"plugin", "package", filepath.Join(src, "delta"), "--key", "Alice", "--keyring", secret, "-d", archives},
		{"plugin", "package", filepath.Join(src, "eps"), "--sign=false", "-d", archives},
	} {
		if _, _, err := runRoot(t, args...); err != nil {
			t.Fatal(err)
		}
	}
	tests := map[dialect.Dialect]struct {
		install [][]string
	}{
		// Helm 3 reads neither Helm 4's plugin.yaml nor archives it kept.
		dialect.Helm3: {install: [][]string{{filepath.Join(src, "alpha")}, {filepath.Join(src, "beta")}}},
		dialect.Helm4: {install: [][]string{
			{filepath.Join(src, "alpha")}, {filepath.Join(src, "beta")}, {filepath.Join(src, "gamma")},
			{filepath.Join(archives, "delta-0.3.0.tgz"), "--keyring", public},
			{filepath.Join(archives, "eps-0.4.0.tgz"), "--verify=false"},
		}},
	}
	for d, tc := range tests {
		t.Run(string(d), func(t *testing.T) {
			peer := peers[d]
			isolatePlugins(t)
			// Helm 4.3.1 installs under $HELM_DATA_HOME whatever $HELM_PLUGINS
			// says, and reads provenance there: both the same.
			helmPlugins := filepath.Join(os.Getenv("XDG_DATA_HOME"), "helm", "plugins")
			t.Setenv("HELM_PLUGINS", helmPlugins)
			for _, args := range tc.install {
				if out, err := exec.Command(peer, append([]string{"plugin", "install"}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("helm plugin install %v: %v\n%s", args, err, out)
				}
			}
			want, err := exec.Command(peer, "plugin", "list").Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := helmDirPluginTable(t, d); got != string(want) {
				t.Errorf("plugin list:\n%s\nHelm's:\n%s", got, want)
			}
			// The command prints the same table, with the built-in plugins too.
			out, _, err := runRoot(t, "plugin", "list", "--compat", string(d))
			header, _, _ := strings.Cut(string(want), "\n")
			if err != nil || !strings.HasPrefix(out, strings.Fields(header)[0]) || !strings.Contains(out, "kustomize") || !strings.Contains(out, "alpha") {
				t.Errorf("plugin list --compat %s: %v\n%s", d, err, out)
			}
		})
	}
}

// Archives we install from are kept beside the plugin, as Helm 4 keeps them,
// so that `plugin list` tells a signed install from an unsigned one, and go
// with the plugin on uninstall.
func TestPluginListProvenanceOfOurInstalls(t *testing.T) {
	secret, public := testKeyrings(t, "Alice")
	dir := isolatePlugins(t)
	archives := t.TempDir()
	src := filepath.Join("testdata", "plugins", "envprint")
	if _, _, err := runRoot(t, "plugin", "package", src, "--key", "Alice", "--keyring", secret, "-d", archives); err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(archives, "envprint-0.1.0.tgz")
	status := func() string {
		t.Helper()
		p, err := plugin.LoadDir(filepath.Join(dir, "envprint"))
		if err != nil {
			t.Fatal(err)
		}
		return plugin.ProvenanceStatus(p)
	}
	steps := []struct {
		name    string
		install []string
		// archive and prov replace the kept files when set.
		archive, prov string
		want          string
	}{
		{name: "signed", install: []string{tgz, "--keyring", public}, want: plugin.ProvenanceSigned},
		{name: "an archive the .prov does not list", archive: "changed", want: plugin.ProvenanceMismatched},
		{name: "a .prov that is no signed message", prov: "junk", want: plugin.ProvenanceInvalid},
		{name: "reinstalled unsigned", install: []string{src, "--verify=false"}, want: plugin.ProvenanceUnsigned},
	}
	for i, s := range steps {
		if s.install != nil {
			if _, _, err := runRoot(t, "plugin", "uninstall", "envprint"); err != nil && i > 0 {
				t.Fatal(err)
			}
			if _, _, err := runRoot(t, append([]string{"plugin", "install"}, s.install...)...); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		if s.archive != "" {
			writeFiles(t, dir, map[string]string{"envprint-0.1.0.tgz": s.archive})
		}
		if s.prov != "" {
			writeFiles(t, dir, map[string]string{"envprint-0.1.0.tgz.prov": s.prov})
		}
		if got := status(); got != s.want {
			t.Errorf("%s: provenance %q, want %q", s.name, got, s.want)
		}
	}
	for _, f := range []string{"envprint-0.1.0.tgz", "envprint-0.1.0.tgz.prov"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s outlived the uninstall", f)
		}
	}
}
