package main

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository over HTTPS whose CA file (given at repo add) has gone or
// holds no certificate, and one whose certificate nothing vouches for, fail
// the downloads of dependency update and build, pull and show as in Helm
// v3.22.0 and v4.3.1: exit status, stdout and stderr byte for byte.
func TestRepositoryTLSErrorsLikeHelm(t *testing.T) {
	peers, dir := downloadFixture(t)
	srv := httptest.NewTLSServer(http.FileServer(http.Dir("repo")))
	t.Cleanup(srv.Close)
	// The same repository under a certificate no CA file names.
	unknown := httptest.NewTLSServer(http.FileServer(http.Dir("repo")))
	t.Cleanup(unknown.Close)
	if _, stderr, err := runRoot(t, "repo", "index", "repo", "--url", srv.URL); err != nil {
		t.Fatal(err, stderr)
	}
	ca := filepath.Join(dir, "ca.pem")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	writeCA := func(data []byte) {
		t.Helper()
		if data == nil {
			_ = os.Remove(ca)
			return
		}
		if err := os.WriteFile(ca, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeCA(caPEM)
	runPeer(t, peers["helm4"], "repo", "add", "secure", srv.URL, "--ca-file", ca)
	writeFiles(t, dir, map[string]string{
		"app/Chart.yaml":      "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  repository: \"@secure\"\n",
		"stranger/Chart.yaml": "apiVersion: v2\nname: stranger\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  repository: " + unknown.URL + "\n",
	})

	cas := map[string][]byte{"CA file missing": nil, "CA file not PEM": []byte("not a certificate\n"), "CA file good": caPEM}
	commands := map[string][]string{
		"dependency update":          {"dependency", "update", "app"},
		"dependency build":           {"dependency", "build", "app"},
		"dependency update: unknown": {"dependency", "update", "stranger"},
		"pull":                       {"pull", "secure/sub", "-d", "pulled"},
		"show chart":                 {"show", "chart", "secure/sub"},
		"repo update":                {"repo", "update"},
	}
	for compat, helm := range peers {
		for caName, caData := range cas {
			for cmdName, args := range commands {
				t.Run(compat+"/"+caName+"/"+cmdName, func(t *testing.T) {
					reset := func() {
						freshDownload(dir, args[1] == "update", "app", "stranger")
						if args[1] == "build" {
							writeCA(caPEM)
							runPeer(t, helm, "dependency", "update", "app")
							_ = os.RemoveAll(filepath.Join("app", "charts"))
						}
						writeCA(caData)
					}
					compareWithHelm(t, helm, compat, args, reset)
					writeCA(caPEM)
				})
			}
		}
	}
}

// downloadFixture is an isolated home (the working directory) with chart
// sub packaged into repo/; it returns the Helm peers and the directory.
func downloadFixture(t *testing.T) (map[string]string, string) {
	t.Helper()
	peers := helmPeers(t)
	dir := t.TempDir()
	t.Chdir(dir)
	isolateHelmHome(t, dir)
	for _, args := range [][]string{{"create", "sub"}, {"package", "sub", "-d", "repo"}} {
		if _, stderr, err := runRoot(t, args...); err != nil {
			t.Fatal(args, err, stderr)
		}
	}
	return peers, dir
}

// compareWithHelm runs args with the Helm peer, then with us in dialect
// compat (by $KUBECTL_CHART_COMPAT: repo has no --compat flag), reset before
// each, and compares exit status, stdout and stderr.
func compareWithHelm(t *testing.T, helm, compat string, args []string, reset func()) {
	t.Helper()
	reset()
	want := peerRun(t, helm, args...)
	reset()
	t.Setenv("KUBECTL_CHART_COMPAT", compat)
	if got := ourRun(t, args...); got != want {
		t.Errorf("%s:\n got %s\nwant %s (Helm's)", strings.Join(args, " "), got, want)
	}
}

// freshDownload forgets what earlier runs downloaded: Helm 4's content cache
// (it would take a chart from there without connecting), pulled/, the
// charts' charts/ and, with lock, their Chart.lock.
func freshDownload(dir string, lock bool, charts ...string) {
	_ = os.RemoveAll(filepath.Join(dir, "helm", "cache", "content"))
	_ = os.RemoveAll("pulled")
	_ = os.MkdirAll("pulled", 0o755)
	for _, c := range charts {
		_ = os.RemoveAll(filepath.Join(c, "charts"))
		if lock {
			_ = os.Remove(filepath.Join(c, "Chart.lock"))
		}
	}
}
