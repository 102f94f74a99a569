//go:build linux

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// hostileTerminal serves an index.yaml whose strings hold terminal escapes: search
// repo's table shows them without their control characters.
func hostileTerminal(t *testing.T, bin string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "apiVersion: v1\nentries:\n  evil:\n  - apiVersion: v2\n    name: evil\n    version: 1.0.0\n"+
			"    appVersion: \"1\\e[2J\"\n    description: \"safe\\rEVIL \\e]0;pwned\\a\\e[31mred\\u009b0m\"\n    urls: [evil-1.0.0.tgz]\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	flags := []string{"--repository-config", filepath.Join(dir, "repositories.yaml"), "--repository-cache", filepath.Join(dir, "cache")}
	if run := runHostile(t, bin, dir, append([]string{"repo", "add", "evil", srv.URL}, flags...)...); run.exit != 0 {
		t.Fatalf("repo add: %s", run.stderr)
	}
	run := runHostile(t, bin, dir, append([]string{"search", "repo", "evil"}, flags...)...)
	if run.exit != 0 {
		t.Fatalf("search repo: exit %d, %s", run.exit, run.stderr)
	}
	if strings.ContainsAny(run.stdout, "\x1b\r\a\u009b") {
		t.Fatalf("terminal controls reach the terminal: %q", run.stdout)
	}
	const want = "evil/evil\t1.0.0        \t1[2J       \tsafe EVIL ]0;pwned[31mred0m\n"
	if !strings.HasSuffix(run.stdout, want) {
		t.Fatalf("search repo printed %q, want a last row %q", run.stdout, want)
	}
}
