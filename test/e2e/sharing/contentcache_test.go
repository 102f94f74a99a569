//go:build e2e

package sharing

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestContentCacheLikeHelm4: in the Helm 4 dialect the charts that template,
// show and install download are kept in the content cache as Helm 4 v4.3.1
// keeps them (same files, same names, same bytes), a chart the repository
// index gives a digest for is read from there when the repository no longer
// serves it (template, and pull, which only reads), `env` prints the cache
// as Helm 4 does, and the Helm 3 dialect knows no --content-cache, as Helm 3.
func TestContentCacheLikeHelm4(t *testing.T) {
	helm4 := helmPeerAt(t, "v4.3.1")
	h := newHome(t)
	h.kc("create", "web")
	h.kc("package", "web", "-d", "served")
	h.kc("create", "api")
	h.kc("package", "api", "-d", "served")
	srv := serveDir(t, h.path("served"), "", "")
	h.kc("repo", "index", h.path("served"), "--url", srv.URL)
	helmRun(t, h, helm4, "repo", "add", "r", srv.URL)
	host := startRegistry(t, "", "")
	h.kc("create", "oci-chart")
	h.kc("package", "oci-chart", "-d", "oci")
	h.kc("push", "oci/oci-chart-0.1.0.tgz", "oci://"+host+"/charts", "--plain-http")

	digest := manifestDigest(t, host, "charts/oci-chart", "0.1.0")

	ours, theirs := h.path("kc-content"), h.path("helm-content")
	kc := func(args ...string) string {
		return h.kc(append(args, "--compat", "helm4", "--content-cache", ours)...)
	}
	hm := func(args ...string) string {
		return helmRun(t, h, helm4, append(args, "--content-cache", theirs)...)
	}
	for _, args := range [][]string{
		{"template", "rel", "r/web"},                  // the index's digest
		{"show", "chart", srv.URL + "/api-0.1.0.tgz"}, // a URL: the archive's digest
		{"show", "values", "api", "--repo", srv.URL},  // --repo
		{"template", "rel", "oci://" + host + "/charts/oci-chart", "--version", "0.1.0", "--plain-http"},
		// A digest its tag confirms: kept under the manifest's digest.
		{"template", "rel", "oci://" + host + "/charts/oci-chart@" + digest, "--version", "0.1.0", "--plain-http"},
	} {
		if a, b := kc(args...), hm(args...); a != b {
			t.Errorf("%v differs from Helm 4's:\n--- ours\n%s\n--- helm\n%s", args, a, b)
		}
	}
	if a, b := listing(t, ours), listing(t, theirs); a != b || a == "" {
		t.Fatalf("content cache differs from Helm 4's:\n--- ours\n%s--- helm\n%s", a, b)
	}

	// What the manifest's digest keeps is read from the cache, not pulled:
	// with another chart's archive there, both render that chart.
	key := strings.TrimPrefix(digest, "sha256:")
	for _, dir := range []string{ours, theirs} {
		entry := filepath.Join(dir, key[:2], key+".chart")
		if _, err := os.Stat(entry); err != nil {
			t.Fatalf("no entry under the manifest's digest: %v", err)
		}
		if err := os.WriteFile(entry, mustRead(t, h.path("served", "web-0.1.0.tgz")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	byDigest := []string{"template", "rel", "oci://" + host + "/charts/oci-chart@" + digest, "--version", "0.1.0", "--plain-http"}
	if a, b := kc(byDigest...), hm(byDigest...); a != b || !strings.Contains(a, "# Source: web/") {
		t.Errorf("template by digest from the cache differs from Helm 4's:\n--- ours\n%s\n--- helm\n%s", a, b)
	}

	// The repository stops serving the archives: what the index gives a
	// digest for comes from the cache, for template and for pull.
	if err := os.Rename(h.path("served", "web-0.1.0.tgz"), h.path("gone.tgz")); err != nil {
		t.Fatal(err)
	}
	if a, b := kc("template", "rel", "r/web"), hm("template", "rel", "r/web"); a != b || !strings.Contains(a, "kind: Deployment") {
		t.Errorf("template from the cache differs from Helm 4's:\n--- ours\n%s\n--- helm\n%s", a, b)
	}
	mkdir(t, h.path("helm-pulled"))
	mkdir(t, h.path("kc-pulled"))
	kc("pull", "r/web", "-d", "kc-pulled")
	hm("pull", "r/web", "-d", "helm-pulled")
	if a, b := mustRead(t, h.path("kc-pulled", "web-0.1.0.tgz")), mustRead(t, h.path("gone.tgz")); string(a) != string(b) {
		t.Error("pull from the cache wrote other bytes")
	}
	// pull only reads: a chart not cached is not added.
	before := listing(t, ours)
	kc("pull", "r/api", "-d", "kc-pulled")
	hm("pull", "r/api", "-d", "helm-pulled")
	if a, b := listing(t, ours), listing(t, theirs); a != before || a != b {
		t.Errorf("pull changed the content cache:\n--- ours\n%s--- helm\n%s", a, b)
	}
	// Without the flag, $HELM_CONTENT_CACHE, else $HELM_CACHE_HOME/content.
	h.env = append(h.env, "HELM_CONTENT_CACHE="+h.path("env-content"))
	h.kc("template", "rel", "r/api", "--compat", "helm4")
	a := listing(t, h.path("env-content"))
	helmRun(t, h, helm4, "template", "rel", "r/api")
	if b := listing(t, h.path("env-content")); a == "" || a != b {
		t.Errorf("$HELM_CONTENT_CACHE was not used as Helm 4 uses it:\n--- ours\n%s--- helm\n%s", a, b)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"env"}, `HELM_CONTENT_CACHE="` + h.path("env-content") + `"`},
		{[]string{"env", "--content-cache", "/elsewhere"}, `HELM_CONTENT_CACHE="/elsewhere"`},
		{[]string{"env", "HELM_CONTENT_CACHE"}, h.path("env-content") + "\n"},
	} {
		a, b := h.kc(tc.args...), helmRun(t, h, helm4, tc.args...)
		if envLines(a) != envLines(b) || !strings.Contains(a, tc.want) {
			t.Errorf("%v differs from Helm 4's:\n--- ours\n%s\n--- helm\n%s", tc.args, a, b)
		}
	}

	helm3 := helmPeer(t)
	_, theirErr, err := h.exec(helm3, "template", "rel", "r/api", "--content-cache", ours)
	if err == nil {
		t.Fatal("Helm 3 accepted --content-cache")
	}
	for _, args := range [][]string{{"template", "rel", "r/api"}, {"env"}, {"repo", "list"}} {
		if got := h.kcFail(append(args, "--compat", "helm3", "--content-cache", ours)...); got != theirErr {
			t.Errorf("%v --compat helm3: %q, want Helm 3's %q", args, got, theirErr)
		}
	}
}

// listing is the files under dir, with their contents' digests, one a line.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		lines = append(lines, fmt.Sprintf("%s %x", rel, sha256.Sum256(b)))
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// envLines is `env`'s output without HELM_BIN, the program's own path.
func envLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "HELM_BIN=") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// manifestDigest is the digest of the manifest tag points to in repository
// (on the registry at host).
func manifestDigest(t *testing.T, host, repository, tag string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodHead, "http://"+host+"/v2/"+repository+"/manifests/"+tag, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	digest := resp.Header.Get("Docker-Content-Digest")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("manifest %s:%s: status %s, digest %q", repository, tag, resp.Status, digest)
	}
	return digest
}
