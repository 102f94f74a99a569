//go:build linux

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// hostilePaths plants paths that lead outside their target: a repository named
// ../../x in repositories.yaml and a symbolic link inside template's --output-dir.
func hostilePaths(t *testing.T, bin string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "apiVersion: v1\nentries: {}\n")
	}))
	defer srv.Close()
	for _, args := range [][]string{{"repo", "update"}, {"repo", "list"}, {"search", "repo", "x"}} {
		t.Run("repository name ../../x: "+args[0]+" "+args[1], func(t *testing.T) {
			dir := t.TempDir()
			config := filepath.Join(dir, "config", "repositories.yaml")
			cache := filepath.Join(dir, "a", "b", "cache")
			writeFiles(t, dir, map[string]string{"config/repositories.yaml": "apiVersion: v1\nrepositories:\n- name: ../../x\n  url: " + srv.URL + "\n"})
			argv := append(append([]string{}, args...), "--repository-config", config, "--repository-cache", cache)
			run := runHostile(t, bin, dir, argv...)
			wantRefusal(t, run, config+`: repositories[0]: repository name "../../x" is not allowed: it must be a single file name`)
			if _, err := os.Stat(filepath.Join(dir, "a", "x-index.yaml")); !os.IsNotExist(err) {
				t.Fatalf("an index was written outside the cache: %v", err)
			}
		})
	}
	t.Run("output-dir symlink", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"c/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
			"c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		})
		outside := filepath.Join(dir, "outside")
		if err := os.MkdirAll(filepath.Join(dir, "out", "c"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(outside, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "out", "c", "templates")); err != nil {
			t.Fatal(err)
		}
		run := runHostile(t, bin, dir, "template", filepath.Join(dir, "c"), "--output-dir", filepath.Join(dir, "out"))
		out := filepath.Join(dir, "out", "c", "templates")
		wantRefusal(t, run, "write "+filepath.Join(out, "cm.yaml")+": "+out+" is a symbolic link: output-dir never follows one")
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("wrote through the link: %v", entries)
		}
	})
}
