//go:build e2e

package sharing

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryRoundTrip: create → lint --strict → package (reproducibly) → repo index →
// serve on 127.0.0.1 → repo add → search → pull (--untar) → template/show from the reference.
func TestRepositoryRoundTrip(t *testing.T) {
	for _, withAuth := range []bool{false, true} {
		t.Run(map[bool]string{false: "anonymous", true: "basic auth"}[withAuth], func(t *testing.T) {
			h := newHome(t)
			h.kc("create", "web")
			h.kc("lint", "--strict", "web")
			h.kc("package", "web", "-d", "repo")
			first, err := os.ReadFile(h.path("repo", "web-0.1.0.tgz"))
			if err != nil {
				t.Fatal(err)
			}
			h.kc("package", "web", "-d", "again")
			second, _ := os.ReadFile(h.path("again", "web-0.1.0.tgz"))
			if !bytes.Equal(first, second) {
				t.Fatal("packaging the same chart twice gave different bytes")
			}
			h.kc("package", "web", "--version", "0.2.0-rc.1", "--app-version", "2.0", "-d", "repo")

			user, pass := "", ""
			if withAuth {
				user, pass = "alice", "s3cret"
			}
			srv := serveDir(t, h.path("repo"), user, pass)
			h.kc("repo", "index", h.path("repo"), "--url", srv.URL)
			index, _ := os.ReadFile(h.path("repo", "index.yaml"))
			if !strings.Contains(string(index), srv.URL+"/web-0.1.0.tgz") {
				t.Fatalf("index.yaml lacks the chart URL:\n%s", index)
			}

			if withAuth {
				if msg := h.kcFail("repo", "add", "myrepo", srv.URL); !strings.Contains(msg, "401") {
					t.Errorf("add without credentials: %s", msg)
				}
				h.kc("repo", "add", "myrepo", srv.URL, "--username", user, "--password", pass)
			} else {
				h.kc("repo", "add", "myrepo", srv.URL)
			}
			if out := h.kc("repo", "list"); !strings.Contains(out, "myrepo") || !strings.Contains(out, srv.URL) {
				t.Errorf("repo list:\n%s", out)
			}
			h.kc("repo", "update")

			out := h.kc("search", "repo", "web")
			if !strings.Contains(out, "myrepo/web") || !strings.Contains(out, "0.1.0") || strings.Contains(out, "0.2.0-rc.1") {
				t.Errorf("search repo web:\n%s", out)
			}
			out = h.kc("search", "repo", "web", "--devel", "-o", "json")
			if !strings.Contains(out, `"version":"0.2.0-rc.1"`) {
				t.Errorf("search --devel:\n%s", out)
			}
			out = h.kc("search", "repo", "web", "--versions", "--version", ">=0.1.0-0")
			if !strings.Contains(out, "0.1.0") || !strings.Contains(out, "0.2.0-rc.1") {
				t.Errorf("search --versions:\n%s", out)
			}

			mkdir(t, h.path("pulled")) // as Helm's, pull writes into a directory that exists
			h.kc("pull", "myrepo/web", "-d", "pulled")
			got, err := os.ReadFile(h.path("pulled", "web-0.1.0.tgz"))
			if err != nil || !bytes.Equal(got, first) {
				t.Fatalf("pulled archive differs from the served one (%v)", err)
			}
			h.kc("pull", "myrepo/web", "--devel", "--untar", "--untardir", "src")
			if b, err := os.ReadFile(h.path("src", "web", "Chart.yaml")); err != nil || !strings.Contains(string(b), "0.2.0-rc.1") {
				t.Errorf("untarred chart: %s %v", b, err)
			}
			if msg := h.kcFail("pull", "myrepo/web", "--devel", "--untar", "--untardir", "src"); !strings.Contains(msg, "already exists") {
				t.Errorf("untar over an existing chart: %s", msg)
			}

			local := h.kc("template", "rel", "web")
			if remote := h.kc("template", "rel", "myrepo/web"); remote != local {
				t.Errorf("template from myrepo/web differs from the local chart")
			}
			if remote := h.kc("template", "rel", srv.URL+"/web-0.1.0.tgz", "--username", user, "--password", pass); withAuth && remote == "" || !withAuth && remote != local {
				t.Errorf("template from an https URL differs")
			}
			// --repo: a repository that is not configured.
			repoArgs := []string{"--repo", srv.URL}
			if withAuth {
				repoArgs = append(repoArgs, "--username", user, "--password", pass)
			}
			if got := h.kc(append([]string{"template", "rel", "web"}, repoArgs...)...); got != local {
				t.Errorf("template web --repo differs from the local chart")
			}
			mkdir(t, h.path("byrepo"))
			h.kc(append([]string{"pull", "web", "--version", "0.1.0", "-d", "byrepo"}, repoArgs...)...)
			if got, err := os.ReadFile(h.path("byrepo", "web-0.1.0.tgz")); err != nil || !bytes.Equal(got, first) {
				t.Errorf("pull --repo: %v", err)
			}
			if out := h.kc("show", "chart", "myrepo/web", "--version", "0.2.0-rc.1"); !strings.Contains(out, "appVersion: \"2.0\"") {
				t.Errorf("show chart:\n%s", out)
			}
			if msg := h.kcFail("template", "rel", "myrepo/nope"); !strings.Contains(msg, `"nope"`) {
				t.Errorf("missing chart: %s", msg)
			}
			h.kc("repo", "remove", "myrepo")
			if msg := h.kcFail("template", "rel", "myrepo/web"); !strings.Contains(msg, "repo myrepo not found") {
				t.Errorf("removed repo: %s", msg)
			}
		})
	}
}

// TestOCIRoundTrip: push to an in-process registry (with and without login), then pull,
// template and show from oci:// by tag, digest and version range.
func TestOCIRoundTrip(t *testing.T) {
	for _, withAuth := range []bool{false, true} {
		t.Run(map[bool]string{false: "anonymous", true: "basic auth"}[withAuth], func(t *testing.T) {
			h := newHome(t)
			user, pass := "", ""
			if withAuth {
				user, pass = "bob", "hunter2"
			}
			host := startRegistry(t, user, pass)
			h.kc("create", "api")
			h.kc("package", "api", "-d", "dist")
			if withAuth {
				if msg := h.kcFail("push", "dist/api-0.1.0.tgz", "oci://"+host+"/charts", "--plain-http"); !strings.Contains(msg, "401") && !strings.Contains(msg, "credential") {
					t.Errorf("push without login: %s", msg)
				}
				h.kcFail("registry", "login", host, "-u", user, "-p", "wrong", "--plain-http")
				h.kc("registry", "login", host, "-u", user, "-p", pass, "--plain-http")
				// The home names $HELM_CONFIG_HOME: logins are Helm's, shared.
				cfg, err := os.ReadFile(h.path("helm-config", "registry", "config.json"))
				if err != nil || !strings.Contains(string(cfg), host) {
					t.Fatalf("credentials file: %s %v", cfg, err)
				}
			}
			// Reported on standard output in the Helm 4 dialect, standard error in Helm 3's.
			out, errOut, err := h.exec(bin, "push", "dist/api-0.1.0.tgz", "oci://"+host+"/charts", "--plain-http")
			pushed := out + errOut
			if err != nil {
				t.Fatalf("push: %v %s", err, pushed)
			}
			var digest string
			for _, line := range strings.Split(pushed, "\n") {
				if d, ok := strings.CutPrefix(line, "Digest: "); ok {
					digest = d
				}
			}
			if !strings.HasPrefix(digest, "sha256:") {
				t.Fatalf("push output: %s", pushed)
			}
			local := h.kc("template", "rel", "api")
			for _, ref := range [][]string{
				{"oci://" + host + "/charts/api:0.1.0"},
				{"oci://" + host + "/charts/api@" + digest},
				{"oci://" + host + "/charts/api", "--version", "^0.1"},
			} {
				args := append([]string{"template", "rel"}, ref...)
				args = append(args, "--plain-http")
				if got := h.kc(args...); got != local {
					t.Errorf("template %v differs from the local chart", ref)
				}
			}
			// A digest that is not the tag's is refused, in Helm's words.
			other := "sha256:" + strings.Repeat("0", 64)
			mkdir(t, h.path("mismatched"))
			for _, args := range [][]string{{"template", "rel"}, {"show", "chart"}, {"pull", "-d", "mismatched"}} {
				msg := h.kcFail(append(args, "oci://"+host+"/charts/api:0.1.0@"+other, "--plain-http")...)
				if !strings.Contains(msg, "chart reference digest mismatch: "+digest+" is not "+other) {
					t.Errorf("%v with a mismatched digest: %s", args, msg)
				}
			}
			mkdir(t, h.path("pulled"))
			h.kc("pull", "oci://"+host+"/charts/api", "--version", "0.1.0", "--plain-http", "-d", "pulled")
			a, _ := os.ReadFile(h.path("dist", "api-0.1.0.tgz"))
			b, _ := os.ReadFile(h.path("pulled", "api-0.1.0.tgz"))
			if !bytes.Equal(a, b) {
				t.Error("pulled archive differs from the pushed one")
			}
			if out := h.kc("show", "values", "oci://"+host+"/charts/api:0.1.0", "--plain-http"); !strings.Contains(out, "replicaCount: 1") {
				t.Errorf("show values:\n%s", out)
			}
			if withAuth {
				h.kc("registry", "logout", host)
				mkdir(t, h.path("again"))
				h.kcFail("pull", "oci://"+host+"/charts/api:0.1.0", "--plain-http", "-d", "again")
			}
		})
	}
}

// TestPullUntarHostileCharts: archives whose chart name or entries would leave the
// target directory are refused and nothing is written outside it.
func TestPullUntarHostileCharts(t *testing.T) {
	h := newHome(t)
	repoDir := h.path("repo")
	if err := os.MkdirAll(repoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := map[string]map[string]string{
		"dotdot-1.0.0.tgz": {"x/Chart.yaml": "apiVersion: v2\nname: ..\nversion: 1.0.0\n"},
		"slash-1.0.0.tgz":  {"x/Chart.yaml": "apiVersion: v2\nname: a/../../b\nversion: 1.0.0\n"},
		"dot-1.0.0.tgz":    {"x/Chart.yaml": "apiVersion: v2\nname: .\nversion: 1.0.0\n"},
		"escape-1.0.0.tgz": {"x/Chart.yaml": "apiVersion: v2\nname: escape\nversion: 1.0.0\n", "x/../../../../escaped": "pwned"},
	}
	for name, entries := range bad {
		if err := os.WriteFile(filepath.Join(repoDir, name), tarball(t, entries), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := serveDir(t, repoDir, "", "")
	target := h.path("out", "target")
	for name := range bad {
		msg := h.kcFail("pull", srv.URL+"/"+name, "--untar", "--untardir", target)
		t.Logf("%s: %s", name, strings.TrimSpace(msg))
	}
	err := filepath.Walk(h.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.Contains(p, "escaped") {
			t.Errorf("wrote %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(h.path("out")); len(entries) > 1 {
		t.Errorf("wrote next to the target: %v", entries)
	}
}
