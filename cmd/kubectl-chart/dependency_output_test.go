package main

import (
	"bytes"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// dependency update and build say what Helm v3.22.0 and v4.3.1 say, on the
// same stream and with the same exit status, byte for byte but for the
// program's name: repositories refreshed (configured and unmanaged), charts
// saved from a repository, a directory and a registry, a dependency that
// does not exist, one whose archive is gone, one vendored at another version.
func TestDependencyOutputLikeHelm(t *testing.T) {
	peers := helmPeers(t)
	dir := t.TempDir()
	t.Chdir(dir)
	isolateHelmHome(t, dir)
	for _, args := range [][]string{
		{"create", "sub"}, {"create", "other"}, {"create", "gone"},
		{"package", "sub", "-d", "repo"}, {"package", "gone", "-d", "repo"},
	} {
		if _, stderr, err := runRoot(t, args...); err != nil {
			t.Fatal(args, err, stderr)
		}
	}
	repoSrv := httptest.NewServer(http.FileServer(http.Dir("repo")))
	t.Cleanup(repoSrv.Close)
	if _, stderr, err := runRoot(t, "repo", "index", "repo", "--url", repoSrv.URL); err != nil {
		t.Fatal(err, stderr)
	}
	// The index lists gone, whose archive is served only while build's
	// lock is written.
	goneArchive := filepath.Join("repo", "gone-0.1.0.tgz")
	goneData := mustReadFile(t, goneArchive)
	if err := os.Remove(goneArchive); err != nil {
		t.Fatal(err)
	}
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	oci := "oci://" + strings.TrimPrefix(reg.URL, "http://") + "/charts"
	if _, stderr, err := runRoot(t, "push", "repo/sub-0.1.0.tgz", oci, "--plain-http"); err != nil {
		t.Fatal(err, stderr)
	}

	parent := func(name string, deps ...string) string {
		y := "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\ndependencies:\n"
		for _, d := range deps {
			f := strings.Fields(d)
			y += "- name: " + f[0] + "\n  version: " + f[1] + "\n"
			if len(f) > 2 {
				y += "  repository: \"" + f[2] + "\"\n"
			}
		}
		writeFiles(t, dir, map[string]string{name + "/Chart.yaml": y})
		return name
	}
	byURL := parent("by-url", "sub 0.1.0 "+repoSrv.URL, "other 0.1.0 file://../other")
	missing := parent("missing", "nope 0.1.0 "+repoSrv.URL)
	noVersion := parent("no-version", "sub 9.9.9 "+repoSrv.URL, "other 9.0.0 file://../other")
	gone := parent("gone-archive", "gone 0.1.0 "+repoSrv.URL)
	fromOCI := parent("from-oci", "sub 0.1.0 "+oci)
	byName := parent("by-name", "sub ~0.1 @local")
	unknown := parent("unknown-repo", "sub 0.1.0 @nothere", "x 0.1.0 stable")
	vendored := parent("vendored", "vend 2.0.0")
	writeFiles(t, dir, map[string]string{"vendored/charts/vend/Chart.yaml": "apiVersion: v2\nname: vend\nversion: 1.0.0\n"})
	stale := parent("stale-lock", "other 0.1.0 file://../other")
	writeFiles(t, dir, map[string]string{stale + "/Chart.lock": "dependencies:\n- name: other\n  repository: file://../other\n  version: 0.1.0\ndigest: sha256:00\ngenerated: \"2020-01-01T00:00:00Z\"\n"})
	none := "no-deps"
	writeFiles(t, dir, map[string]string{none + "/Chart.yaml": "apiVersion: v2\nname: no-deps\nversion: 0.1.0\n"})

	type step struct {
		name string
		args []string
	}
	// Without a configured repository, then with one.
	unmanaged := []step{
		{"update: unmanaged repository and a directory", []string{"update", byURL}},
		{"update: missing chart", []string{"update", missing}},
		{"update: no matching versions", []string{"update", noVersion}},
		{"update: archive gone", []string{"update", gone}},
		{"update: registry", []string{"update", fromOCI, "--plain-http"}},
		{"update: vendored at another version", []string{"update", vendored}},
		{"update: no dependencies", []string{"update", none}},
		{"update: unknown repositories", []string{"update", unknown}},
		{"build: unmanaged repository", []string{"build", byURL}},
		{"build: registry", []string{"build", fromOCI, "--plain-http"}},
		{"build: lock out of sync", []string{"build", stale}},
		{"update --skip-refresh: unmanaged repository", []string{"update", byURL, "--skip-refresh"}},
	}
	managed := []step{
		{"update: configured repository by URL", []string{"update", byURL}},
		{"update: configured repository by name", []string{"update", byName}},
		{"update: missing chart", []string{"update", missing}},
		{"update: archive gone", []string{"update", gone}},
		{"update: registry", []string{"update", fromOCI, "--plain-http"}},
		{"build: configured repository", []string{"build", byURL}},
		{"build: archive gone", []string{"build", gone}},
		{"build --skip-refresh", []string{"build", byName, "--skip-refresh"}},
	}
	run := func(t *testing.T, steps []step) {
		for _, s := range steps {
			for compat, helm := range peers {
				t.Run(compat+"/"+s.name, func(t *testing.T) {
					chart := s.args[1]
					args := append([]string{"dependency"}, s.args...)
					clean := func() {
						_ = os.RemoveAll(filepath.Join(chart, "charts"))
						if chart == vendored {
							writeFiles(t, dir, map[string]string{"vendored/charts/vend/Chart.yaml": "apiVersion: v2\nname: vend\nversion: 1.0.0\n"})
						}
						if s.args[0] == "update" {
							_ = os.Remove(filepath.Join(chart, "Chart.lock"))
						}
					}
					if s.args[0] == "build" && chart != stale {
						// Build needs the lock a working update writes.
						if err := os.WriteFile(goneArchive, goneData, 0o644); err != nil {
							t.Fatal(err)
						}
						runPeer(t, helm, "dependency", "update", chart, "--plain-http")
						if err := os.Remove(goneArchive); err != nil {
							t.Fatal(err)
						}
					}
					clean()
					want := peerRun(t, helm, args...)
					helmCharts := chartsDir(t, chart)
					clean()
					got := ourRun(t, append(args, "--compat", compat)...)
					if got != want {
						t.Errorf("%s:\n got %s\nwant %s (Helm's)", strings.Join(args, " "), got, want)
					}
					if c := chartsDir(t, chart); c != helmCharts {
						t.Errorf("charts/ holds %q, Helm's %q", c, helmCharts)
					}
				})
			}
		}
	}
	run(t, unmanaged)
	runPeer(t, peers["helm4"], "repo", "add", "local", repoSrv.URL)
	run(t, managed)
}

// isolateHelmHome points Helm's and our configuration and caches into dir.
func isolateHelmHome(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("HOME", dir)
	t.Setenv("KUBECONFIG", filepath.Join(dir, "no-kubeconfig"))
	for k, v := range map[string]string{
		"HELM_REPOSITORY_CONFIG": "helm/repositories.yaml", "HELM_REPOSITORY_CACHE": "helm/cache",
		"HELM_REGISTRY_CONFIG": "helm/registry.json", "HELM_CONFIG_HOME": "helm", "HELM_CACHE_HOME": "helm/cache", "HELM_DATA_HOME": "helm/data",
	} {
		t.Setenv(k, filepath.Join(dir, v))
	}
}

// peerRun runs the Helm peer and returns its exit status, stdout and stderr
// in one text, with Helm's program name as ours.
func peerRun(t *testing.T, helm string, args ...string) string {
	t.Helper()
	cmd := exec.Command(helm, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	return strings.ReplaceAll(runText(code, stdout.String(), stderr.String()), "'helm ", "'kubectl chart ")
}

// ourRun runs our root command as peerRun runs Helm.
func ourRun(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, err := runRoot(t, args...)
	code := 0
	if err != nil {
		code = 1
		stderr += "Error: " + err.Error() + "\n"
	}
	return runText(code, stdout, stderr)
}

func runText(code int, stdout, stderr string) string {
	return "exit " + string(rune('0'+code)) + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr
}
