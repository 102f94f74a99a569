//go:build e2e

package sharing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDependencies: update with a repository alias, a URL range, file:// and oci://
// dependencies, then build from Chart.lock, template --dependency-update and package -u.
func TestDependencies(t *testing.T) {
	h := newHome(t)
	host := startRegistry(t, "", "")
	h.kc("create", "lib")
	h.kc("package", "lib", "-d", "repo")
	h.kc("package", "lib", "--version", "0.2.0", "-d", "repo")
	h.kc("package", "lib", "--version", "1.0.0", "-d", "oci")
	h.kc("push", "oci/lib-1.0.0.tgz", "oci://"+host+"/deps", "--plain-http")
	srv := serveDir(t, h.path("repo"), "", "")
	h.kc("repo", "index", h.path("repo"))
	h.kc("repo", "add", "deps", srv.URL)

	h.kc("create", "app")
	writeFile(t, h.path("app", "Chart.yaml"), `apiVersion: v2
name: app
version: 1.0.0
dependencies:
- name: lib
  version: ~0.1.0
  repository: "@deps"
- name: lib
  alias: newest
  version: ">=0.1.0"
  repository: `+srv.URL+`
- name: lib
  alias: fromoci
  version: ^1.0.0
  repository: oci://`+host+`/deps
- name: local
  version: 0.1.0
  repository: file://../local
`)
	h.kc("create", "local")
	if msg := h.kcFail("template", "rel", "app"); !strings.Contains(msg, "dependency build") {
		t.Errorf("missing dependencies: %s", msg)
	}
	if out := h.kc("dependency", "list", "app"); !strings.Contains(out, "missing") {
		t.Errorf("dependency list before update:\n%s", out)
	}
	h.kc("dependency", "update", "app", "--plain-http")
	lock := string(mustRead(t, h.path("app", "Chart.lock")))
	for _, want := range []string{"version: 0.1.0", "version: 0.2.0", "version: 1.0.0", "repository: oci://" + host + "/deps", "repository: file://../local", "digest: sha256:"} {
		if !strings.Contains(lock, want) {
			t.Errorf("Chart.lock lacks %q:\n%s", want, lock)
		}
	}
	out := h.kc("dependency", "list", "app")
	if strings.Contains(out, "missing") || strings.Contains(out, "wrong") {
		t.Errorf("dependency list after update:\n%s", out)
	}
	rendered := h.kc("template", "rel", "app")
	for _, want := range []string{"name: rel-lib", "name: rel-newest", "name: rel-fromoci", "name: rel-local"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("rendered app lacks %q", want)
		}
	}

	// build restores charts/ from the lock.
	if err := os.RemoveAll(h.path("app", "charts")); err != nil {
		t.Fatal(err)
	}
	h.kc("dependency", "build", "app", "--plain-http")
	if got := h.kc("template", "rel", "app"); got != rendered {
		t.Error("render after dependency build differs")
	}

	// --dependency-update on template, and package -u.
	if err := os.RemoveAll(h.path("app", "charts")); err != nil {
		t.Fatal(err)
	}
	if got := h.kc("template", "rel", "app", "--dependency-update", "--plain-http"); got != rendered {
		t.Error("template --dependency-update renders differently")
	}
	if err := os.RemoveAll(h.path("app", "charts")); err != nil {
		t.Fatal(err)
	}
	h.kc("package", "app", "-u", "-d", "dist", "--plain-http")
	if got := h.kc("template", "rel", "dist/app-1.0.0.tgz"); got != rendered {
		t.Error("packaged app renders differently")
	}

	// A symlinked Chart.lock is never written through, whether it leads out of the
	// chart (refused when loading) or to another file inside it.
	lockData := mustRead(t, h.path("app", "Chart.lock"))
	writeFile(t, h.path("precious.txt"), "keep\n")
	writeFile(t, h.path("app", "precious.lock"), string(lockData))
	for _, target := range []string{h.path("precious.txt"), "precious.lock"} {
		if err := os.Remove(h.path("app", "Chart.lock")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, h.path("app", "Chart.lock")); err != nil {
			t.Fatal(err)
		}
		if msg := h.kcFail("dependency", "update", "app", "--plain-http"); !strings.Contains(msg, "symlink") && !strings.Contains(msg, "symbolic link") {
			t.Errorf("symlinked Chart.lock: %s", msg)
		}
	}
	if b := mustRead(t, h.path("precious.txt")); string(b) != "keep\n" {
		t.Errorf("wrote through the symlink: %q", b)
	}
	if b := mustRead(t, h.path("app", "precious.lock")); string(b) != string(lockData) {
		t.Errorf("wrote through the symlink inside the chart")
	}
}

// TestBadRepositories: indexes with duplicates, non-SemVer versions or truncated content.
func TestBadRepositories(t *testing.T) {
	h := newHome(t)
	cases := map[string]struct {
		index string
		want  string
		warn  string
	}{
		"duplicate": {index: "apiVersion: v1\nentries:\n  a:\n  - {apiVersion: v2, name: a, version: 1.0.0, urls: [a.tgz]}\n  - {apiVersion: v2, name: a, version: 1.0.0, urls: [b.tgz]}\n",
			want: `lists version "1.0.0" more than once`},
		"truncated": {index: "apiVersion: v1\nentries:\n  a:\n  - {apiVersion: v2, name: a, vers", want: "invalid index"},
		"no api":    {index: "entries: {}\n", want: "no API version"},
		"nonsemver": {index: "apiVersion: v1\nentries:\n  a:\n  - {apiVersion: v2, name: a, version: latest, urls: [a.tgz]}\n",
			warn: `skipping chart "a" version "latest"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "index.yaml"), tc.index)
			srv := serveDir(t, dir, "", "")
			repoName := strings.ReplaceAll(name, " ", "-")
			out, errOut, err := h.exec(bin, "repo", "add", repoName, srv.URL)
			if tc.want != "" {
				if err == nil || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "index.yaml") {
					t.Errorf("repo add: err=%v\n%s%s", err, out, errOut)
				}
				return
			}
			if err != nil || !strings.Contains(errOut, tc.warn) {
				t.Errorf("repo add: err=%v\n%s%s", err, out, errOut)
			}
		})
	}
}
