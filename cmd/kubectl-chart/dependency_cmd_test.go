package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// dependency list as Helm v4.3.1 and v3.22.0 print it: vendored directories
// are "unpacked", columns up to 80 characters wide.
func TestDependencyListLikeHelm(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"dl/Chart.yaml": `apiVersion: v2
name: dl
version: 0.1.0
dependencies:
- name: sub
  version: ">=1.0.0"
  repository: file://../sub
- name: missingdep-with-a-long-name
  version: 1.2.3
  repository: https://example.com/a/very/long/repository/url/that/goes/on
- name: wrongv
  version: 2.0.0
  repository: ""
`,
		"dl/charts/sub/Chart.yaml":    "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
		"dl/charts/wrongv/Chart.yaml": "apiVersion: v2\nname: wrongv\nversion: 1.0.0\n",
	})
	out, _, err := runRoot(t, "dependency", "list", filepath.Join(dir, "dl"))
	if err != nil {
		t.Fatal(err)
	}
	want := "NAME                       \tVERSION\tREPOSITORY                                                 \tSTATUS       \n" +
		"sub                        \t>=1.0.0\tfile://../sub                                              \tunpacked     \n" +
		"missingdep-with-a-long-name\t1.2.3  \thttps://example.com/a/very/long/repository/url/that/goes/on\tmissing      \n" +
		"wrongv                     \t2.0.0  \t                                                           \twrong version\n\n"
	if out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", out, want)
	}
}

// dependency build takes a requirements.lock written by Helm 2, whose digest
// is of the requirements alone, as Helm 3 and 4 do (saying so in a log line).
func TestDependencyBuildHelm2Lock(t *testing.T) {
	dir := t.TempDir()
	sum := sha256.Sum256([]byte(`{"dependencies":[{"name":"sub","version":"1.0.0","repository":"file://../sub"}]}`))
	writeFiles(t, dir, map[string]string{
		"sub/Chart.yaml":        "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
		"v2c/Chart.yaml":        "apiVersion: v1\nname: v2c\nversion: 0.1.0\n",
		"v2c/requirements.yaml": "dependencies:\n- name: sub\n  version: 1.0.0\n  repository: file://../sub\n",
		"v2c/requirements.lock": "dependencies:\n- name: sub\n  repository: file://../sub\n  version: 1.0.0\ndigest: sha256:" + hex.EncodeToString(sum[:]) + "\ngenerated: 2019-01-01T00:00:00Z\n",
	})
	for compat, log := range map[string]string{
		"helm3": "manager.go:122: warning: a valid Helm v3 hash was not found. Checking against Helm v2 hash...\n",
		"helm4": `level=INFO msg="warning: a valid Helm v3 hash was not found. Checking against Helm v2 hash..."` + "\n",
	} {
		t.Run(compat, func(t *testing.T) {
			t.Setenv("KUBECTL_CHART_COMPAT", compat)
			out, stderr, err := runRoot(t, "dependency", "build", filepath.Join(dir, "v2c"))
			if err != nil {
				t.Fatal(err)
			}
			if out != "Saving 1 charts\nDeleting outdated charts\n" || stderr != log {
				t.Errorf("stdout %q, stderr %q", out, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "v2c", "charts", "sub-1.0.0.tgz")); err != nil {
				t.Error(err)
			}
		})
	}
	// A digest of neither kind is still refused.
	writeFiles(t, dir, map[string]string{"v2c/requirements.lock": "dependencies:\n- name: sub\n  repository: file://../sub\n  version: 1.0.0\ndigest: sha256:00\n"})
	if _, _, err := runRoot(t, "dependency", "build", filepath.Join(dir, "v2c")); err == nil || err.Error() != "the lock file (requirements.lock) is out of sync with the dependencies file (requirements.yaml). Please update the dependencies" {
		t.Fatalf("error = %v", err)
	}
}
