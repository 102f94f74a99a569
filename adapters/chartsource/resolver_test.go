package chartsource_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
)

func TestResolverReferences(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"local/Chart.yaml": "apiVersion: v2\nname: local\nversion: 1.0.0\n"})
	t.Chdir(dir)

	for ref, remote := range map[string]bool{
		"local":                 false,
		"./local":               false,
		filepath.Join(dir, "x"): false,
		"./missing":             false,
		"missing":               true, // as Helm: a bare name is a repository chart
		"repo/chart":            true,
		"https://h/c.tgz":       true,
		"oci://h/p/c":           true,
	} {
		if got := chartsource.IsRemote(ref); got != remote {
			t.Errorf("IsRemote(%q) = %v, want %v", ref, got, remote)
		}
	}

	r := &chartsource.Resolver{Local: chartsource.NewLocal()}
	ctx := context.Background()
	if c, err := r.LoadChart(ctx, "local"); err != nil || c.Name() != "local" {
		t.Errorf("local directory: %v", err)
	}
	for ref, want := range map[string]string{
		"./missing":     `path "./missing" not found`,
		"missing":       "non-absolute URLs should be in form of repo_name/path_to_chart, got: missing",
		"repo/chart":    "repository references are not supported here",
		"oci://h/p/c":   "OCI registries are not supported here",
		"ftp://h/c.tgz": "could not find protocol handler for: ftp",
		"a/b/c":         "non-absolute URLs should be in form of repo_name/path_to_chart",
	} {
		if _, err := r.LoadChart(ctx, ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadChart(%q): err = %v, want %q", ref, err, want)
		}
	}
	withRepo := &chartsource.Resolver{Local: chartsource.NewLocal(), RepoURL: "http://127.0.0.1:1"}
	if _, err := withRepo.LoadChart(ctx, "a/b"); err == nil || !strings.Contains(err.Error(), "with --repo") {
		t.Errorf("--repo with a path: %v", err)
	}
}
