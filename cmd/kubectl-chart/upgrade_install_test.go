package main

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// upgrade --install of a release that does not exist says so first, as Helm
// does before it renders, and fails in the install's own words, without
// upgrade's prefix (helmfile runs every release this way).
func TestUpgradeInstallFailsAsInstall(t *testing.T) {
	isolatePlugins(t)
	chart := writeDemoChart(t)
	if err := os.WriteFile(filepath.Join(chart, "templates", "fail.yaml"), []byte(`{{ fail "refused" }}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	const want = "execution error at (demo/templates/fail.yaml:1:3): refused"
	stdout, _, err := runLifecycle(t, f, "upgrade", "--install", "web", chart)
	if err == nil || err.Error() != want || stdout != "Release \"web\" does not exist. Installing it now.\n" {
		t.Errorf("new release: stdout %q, error %v; want %q", stdout, err, want)
	}
	if stdout, _, err := runLifecycle(t, f, "upgrade", "--install", "web", chart, "-o", "json"); err == nil || err.Error() != want || stdout != "" {
		t.Errorf("-o json: stdout %q, error %v", stdout, err)
	}
	if _, _, err := runLifecycle(t, f, "install", "web", writeDemoChart(t)); err != nil {
		t.Fatal(err)
	}
	if stdout, _, err := runLifecycle(t, f, "upgrade", "--install", "web", chart); err == nil || err.Error() != "UPGRADE FAILED: "+want || stdout != "" {
		t.Errorf("existing release: stdout %q, error %v", stdout, err)
	}
}
