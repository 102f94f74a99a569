package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/plugin"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var updateTables = flag.Bool("update-tables", false, "rewrite testdata/tables goldens from Helm v4.3.1 and v3.22.0 (built by hack/helm-peer.sh)")

// Inputs of the table goldens, under testdata/tables.
const (
	tablesDir = "testdata/tables"
	// releasesYAML is read by Helm's memory driver and seeds our store.
	releasesYAML = tablesDir + "/releases.yaml"
)

// repoFlags point repo list and search at the fixture repositories (a case
// naming its own repositories.yaml keeps the cache).
var repoFlags = []string{"--repository-config", tablesDir + "/repo/repositories.yaml", "--repository-cache", tablesDir + "/repo/cache"}

// Every table Helm prints from local input (its releases from memory driver
// data), byte for byte, in both dialects: tabs between padded columns, wide
// and accented text, cut columns, cells of several lines, headers, empty
// results, each command's flags. The goldens are Helm's stdout (-update-tables).
func TestTablesLikeHelm(t *testing.T) {
	both := []dialect.Dialect{dialect.Helm4, dialect.Helm3}
	tests := map[string]struct {
		args     []string
		dialects []dialect.Dialect
	}{
		"repo-list":            {args: []string{"repo", "list"}, dialects: both},
		"repo-list-no-headers": {args: []string{"repo", "list", "--no-headers"}, dialects: []dialect.Dialect{dialect.Helm4}},
		"repo-list-json":       {args: []string{"repo", "list", "-o", "json"}, dialects: both},
		"search":               {args: []string{"search", "repo"}, dialects: both},
		"search-versions":      {args: []string{"search", "repo", "alpha", "-l"}, dialects: both},
		"search-devel":         {args: []string{"search", "repo", "alpha", "--devel"}, dialects: both},
		"search-keyword":       {args: []string{"search", "repo", "unicode"}, dialects: both},
		"search-width-10":      {args: []string{"search", "repo", "--max-col-width", "10"}, dialects: both},
		"search-width-2":       {args: []string{"search", "repo", "--max-col-width", "2"}, dialects: both},
		"search-width-0":       {args: []string{"search", "repo", "--max-col-width", "0"}, dialects: both},
		"search-yaml":          {args: []string{"search", "repo", "-o", "yaml"}, dialects: both},
		"search-none":          {args: []string{"search", "repo", "nothing"}, dialects: both},
		"search-missing-index": {args: []string{"search", "repo", "alpha", "--repository-config", tablesDir + "/repo/repositories-missing.yaml"}, dialects: both},
		"list":                 {args: []string{"list", "-n", "default"}, dialects: both},
		"list-no-headers":      {args: []string{"list", "-n", "default", "--no-headers"}, dialects: both},
		"list-date":            {args: []string{"list", "-n", "default", "-d"}, dialects: both},
		"list-date-reverse":    {args: []string{"list", "-n", "default", "-d", "-r"}, dialects: both},
		"list-short":           {args: []string{"list", "-n", "default", "--short"}, dialects: both},
		"list-short-json":      {args: []string{"list", "-n", "default", "-q", "-o", "json"}, dialects: both},
		"list-time-format":     {args: []string{"list", "-n", "default", "--time-format", "2006-01-02 15:04:05Z0700"}, dialects: both},
		"list-json":            {args: []string{"list", "-n", "default", "-o", "json"}, dialects: both},
		"list-yaml":            {args: []string{"list", "-n", "default", "-o", "yaml"}, dialects: both},
		"list-all":             {args: []string{"list", "-n", "default", "-a"}, dialects: []dialect.Dialect{dialect.Helm3}},
		"list-uninstalled":     {args: []string{"list", "-n", "default", "--uninstalled"}, dialects: both},
		"list-empty":           {args: []string{"list", "-n", "empty"}, dialects: both},
		"list-empty-no-header": {args: []string{"list", "-n", "empty", "--no-headers"}, dialects: both},
		"list-empty-json":      {args: []string{"list", "-n", "empty", "-o", "json"}, dialects: both},
		"list-empty-short":     {args: []string{"list", "-n", "empty", "-q"}, dialects: both},
		"list-zero-time":       {args: []string{"list", "-n", "zero"}, dialects: both},
		"history-zero-time":    {args: []string{"history", "zero", "-n", "zero"}, dialects: both},
		"history-zero-json":    {args: []string{"history", "zero", "-n", "zero", "-o", "json"}, dialects: both},
		"status-zero-json":     {args: []string{"status", "zero", "-n", "zero", "-o", "json"}, dialects: both},
		"history":              {args: []string{"history", "web", "-n", "default"}, dialects: both},
		"history-max":          {args: []string{"history", "web", "-n", "default", "--max", "2"}, dialects: both},
		"history-json":         {args: []string{"history", "web", "-n", "default", "-o", "json"}, dialects: both},
		"history-yaml":         {args: []string{"history", "web", "-n", "default", "-o", "yaml"}, dialects: both},
		"history-rollback":     {args: []string{"history", "web", "-n", "default", "--show-rollback-revision"}, dialects: []dialect.Dialect{dialect.Helm4}},
		"history-lines":        {args: []string{"history", "api", "-n", "default"}, dialects: both},
		"history-wide":         {args: []string{"history", "a-very-long-release-name-for-a-wide-column", "-n", "default"}, dialects: both},
		"status":               {args: []string{"status", "web", "-n", "default"}, dialects: both},
		"status-json":          {args: []string{"status", "web", "-n", "default", "-o", "json"}, dialects: both},
		"status-yaml":          {args: []string{"status", "web", "-n", "default", "-o", "yaml", "--revision", "1"}, dialects: both},
		"dependency-list":      {args: []string{"dependency", "list", tablesDir + "/depchart"}, dialects: both},
		"dependency-list-12":   {args: []string{"dependency", "list", tablesDir + "/depchart/", "--max-col-width", "12"}, dialects: both},
		"dependency-list-none": {args: []string{"dependency", "list", tablesDir + "/depchart/charts/sub"}, dialects: both},
	}
	seedTableReleases(t)
	for name, tc := range tests {
		args := tc.args
		if (args[0] == "repo" || args[0] == "search") && !slices.Contains(args, "--repository-config") {
			args = append(append([]string(nil), args...), repoFlags...)
		} else if args[0] == "search" {
			args = append(append([]string(nil), args...), repoFlags[2:]...)
		}
		for _, d := range tc.dialects {
			t.Run(name+"/"+string(d), func(t *testing.T) {
				golden := filepath.Join(tablesDir, name+"."+string(d)+".txt")
				// Helm's stderr, when it has any.
				goldenErr := filepath.Join(tablesDir, name+"."+string(d)+".stderr.txt")
				if *updateTables {
					writeHelmGolden(t, d, args, golden, goldenErr)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -run TestTablesLikeHelm -update-tables writes it)", err)
				}
				wantErr, err := os.ReadFile(goldenErr)
				if err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
				t.Setenv(dialect.EnvVar, string(d))
				out, errOut, err := runRoot(t, args...)
				if err != nil {
					t.Fatalf("%v: %v", args, err)
				}
				if out != string(want) {
					t.Errorf("%v differs from Helm's %s:\n%q\nHelm's:\n%q", args, golden, out, want)
				}
				if errOut != string(wantErr) {
					t.Errorf("%v: stderr differs from Helm's:\n%q\nHelm's:\n%q", args, errOut, wantErr)
				}
			})
		}
	}
}

// plugin list's table, as each Helm prints a plugin directory of its own
// (Helm 3 reads no apiVersion: v1 plugin.yaml): wide and accented text,
// long names and descriptions, Helm 4's columns. Our built-in plugins are
// left out (the command lists them too).
func TestPluginListTablesLikeHelm(t *testing.T) {
	for _, d := range []dialect.Dialect{dialect.Helm4, dialect.Helm3} {
		t.Run(string(d), func(t *testing.T) {
			// Where Helm installs plugins, $HELM_DATA_HOME/plugins, which
			// Helm 4 reads their provenance from.
			data := t.TempDir()
			dir := filepath.Join(data, "plugins")
			if err := os.CopyFS(dir, os.DirFS(filepath.Join(tablesDir, "plugins-"+string(d)))); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(tablesDir, "plugin-list."+string(d)+".txt")
			if *updateTables {
				writeHelmGolden(t, d, []string{"plugin", "list"}, golden, filepath.Join(tablesDir, "plugin-list."+string(d)+".stderr.txt"), "HELM_DATA_HOME="+data, "HELM_PLUGINS="+dir)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestPluginListTablesLikeHelm -update-tables writes it)", err)
			}
			isolatePlugins(t)
			t.Setenv("HELM_DATA_HOME", data)
			t.Setenv("HELM_PLUGINS", dir)
			if got := helmDirPluginTable(t, d); got != string(want) {
				t.Errorf("plugin list differs from Helm's %s:\n%q\nHelm's:\n%q", golden, got, want)
			}
		})
	}
}

// helmDirPluginTable is the dialect's plugin list table of the plugins in
// $HELM_PLUGINS alone (the built-in plugins are ours).
func helmDirPluginTable(t *testing.T, d dialect.Dialect) string {
	t.Helper()
	reg, err := plugin.Load(plugin.Sources{Defaults: []byte("pluginDirs:\n  - ${HELM_PLUGINS}\n"), DefaultsName: "test", Env: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := printPlugins(&got, reg.All(), d); err != nil {
		t.Fatal(err)
	}
	return got.String()
}

// seedTableReleases loads releases.yaml into a bbolt store our commands read.
func seedTableReleases(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(releasesYAML)
	if err != nil {
		t.Fatal(err)
	}
	var rels []*release.Release
	if err := yaml.Unmarshal(b, &rels); err != nil {
		t.Fatalf("%s: %v", releasesYAML, err)
	}
	path := filepath.Join(t.TempDir(), "releases.db")
	s := bbolt.New(path, 0)
	for _, r := range rels {
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(StorageEnv, "bbolt")
	t.Setenv(BboltPathEnv, path)
}

// writeHelmGolden runs the dialect's Helm on the same input (env added to
// its environment) and keeps its stdout, and its stderr when it has any; it
// must succeed.
func writeHelmGolden(t *testing.T, d dialect.Dialect, args []string, golden, goldenErr string, env ...string) {
	t.Helper()
	version := helmPeerVersions[d]
	peer := prereq.BuildHelmPeer(t, version)
	data, err := filepath.Abs(releasesYAML)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(peer, args...)
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir(),
		"HELM_DRIVER=memory", "HELM_MEMORY_DRIVER_DATA="+data, "KUBECONFIG="+os.DevNull)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s %v: %v\n%s", version, args, err, stderr.String())
	}
	if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(goldenErr); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		if err := os.WriteFile(goldenErr, stderr.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
