package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// A repository behind basic auth that refuses the credentials repo add
// recorded fails the downloads as in Helm v3.22.0 and v4.3.1: exit status,
// stdout and stderr byte for byte.
func TestRepositoryAuthErrorsLikeHelm(t *testing.T) {
	peers, dir := downloadFixture(t)
	var password atomic.Value
	password.Store("s3cret")
	files := http.FileServer(http.Dir("repo"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != password.Load().(string) {
			w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if _, stderr, err := runRoot(t, "repo", "index", "repo", "--url", srv.URL); err != nil {
		t.Fatal(err, stderr)
	}
	runPeer(t, peers["helm4"], "repo", "add", "locked", srv.URL, "--username", "alice", "--password", "s3cret")
	writeFiles(t, dir, map[string]string{
		"app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  repository: \"@locked\"\n",
	})
	passwords := map[string]string{"credentials accepted": "s3cret", "credentials refused": "changed"}
	commands := map[string][]string{
		"dependency update": {"dependency", "update", "app"},
		"dependency build":  {"dependency", "build", "app"},
		"pull":              {"pull", "locked/sub", "-d", "pulled"},
		"show chart":        {"show", "chart", "locked/sub"},
		"repo update":       {"repo", "update"},
	}
	for compat, helm := range peers {
		for pwName, pw := range passwords {
			for cmdName, args := range commands {
				t.Run(compat+"/"+pwName+"/"+cmdName, func(t *testing.T) {
					reset := func() {
						freshDownload(dir, args[1] == "update", "app")
						password.Store("s3cret")
						if args[1] == "build" {
							runPeer(t, helm, "dependency", "update", "app")
							_ = os.RemoveAll(filepath.Join("app", "charts"))
						}
						password.Store(pw)
					}
					compareWithHelm(t, helm, compat, args, reset)
					password.Store("s3cret")
				})
			}
		}
	}
}
