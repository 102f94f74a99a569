//go:build e2e

package sharing

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPushPullOCILikeHelm pushes, and pulls by tag and by digest, OCI charts
// with each Helm and with kubectl-chart in its dialect: the same output on the
// same stream (Helm 4 says what it pushed or pulled on standard output, Helm 3
// on standard error, both explain a tag's underscore), and the same files,
// named as Helm names them (a chart pulled by digest after its digest). Helm
// 4's pull reads a chart its content cache keeps under a digest its tag
// confirms, and says nothing.
func TestPushPullOCILikeHelm(t *testing.T) {
	helm4 := helmPeerAt(t, "v4.3.1")
	helm3 := helmPeer(t)
	h := newHome(t)
	host := startRegistry(t, "", "")
	h.kc("create", "plain")
	h.kc("package", "plain", "-d", "oci")
	h.kc("push", "oci/plain-0.1.0.tgz", "oci://"+host+"/charts", "--plain-http")
	h.kc("create", "built")
	h.kc("package", "built", "-d", "oci", "--version", "1.2.3+build.1")
	h.kc("push", "oci/built-1.2.3+build.1.tgz", "oci://"+host+"/charts", "--plain-http")
	for _, helm := range []struct{ compat, bin string }{{"helm4", helm4}, {"helm3", helm3}} {
		// The same archive to the same repository: the same reference and digest.
		args := []string{"push", "oci/built-1.2.3+build.1.tgz", "oci://" + host + "/again", "--plain-http"}
		ko, ke, kerr := h.exec(bin, append(args, "--compat", helm.compat)...)
		ho, he, herr := h.exec(helm.bin, args...)
		// A push's manifest records when it was made: digests differ.
		ko, ke, ho, he = anyDigest(ko), anyDigest(ke), anyDigest(ho), anyDigest(he)
		if kerr != nil || herr != nil || ko != ho || ke != he {
			t.Errorf("%s push: ours (%v) stdout %q, stderr %q; helm's (%v) stdout %q, stderr %q", helm.compat, kerr, ko, ke, herr, ho, he)
		}
	}
	digest := manifestDigest(t, host, "charts/plain", "0.1.0")
	byDigest := "oci://" + host + "/charts/plain@" + digest

	n := 0
	pull := func(prog string, args ...string) (string, string, string) {
		n++
		dir := fmt.Sprintf("pulled-%d", n)
		mkdir(t, h.path(dir))
		out, errOut, err := h.exec(prog, append([]string{"pull", "--plain-http", "-d", dir}, args...)...)
		if err != nil {
			t.Fatalf("%s pull %v: %v\n%s%s", prog, args, err, out, errOut)
		}
		files, err := os.ReadDir(h.path(dir))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range files {
			names = append(names, f.Name())
		}
		return out, errOut, strings.Join(names, " ")
	}
	for _, helm := range []struct{ compat, bin string }{{"helm4", helm4}, {"helm3", helm3}} {
		for _, args := range [][]string{
			{"oci://" + host + "/charts/plain", "--version", "0.1.0"},
			{"oci://" + host + "/charts/built", "--version", "1.2.3+build.1"},
			{byDigest, "--version", "0.1.0"},
			{byDigest},
		} {
			ko, ke, kf := pull(bin, append(args, "--compat", helm.compat)...)
			ho, he, hf := pull(helm.bin, args...)
			if ko != ho || ke != he || kf != hf {
				t.Errorf("%s pull %v:\n--- ours: stdout %q, stderr %q, files %s\n--- helm: stdout %q, stderr %q, files %s",
					helm.compat, args, ko, ke, kf, ho, he, hf)
			}
		}
	}

	// Helm 4's template keeps the chart under its digest; pull then reads it.
	kc4 := []string{"--compat", "helm4", "--content-cache", h.path("kc-content")}
	h.kc(append([]string{"template", "rel", byDigest, "--version", "0.1.0", "--plain-http"}, kc4...)...)
	helmRun(t, h, helm4, "template", "rel", byDigest, "--version", "0.1.0", "--plain-http", "--content-cache", h.path("helm-content"))
	ko, ke, kf := pull(bin, append([]string{byDigest, "--version", "0.1.0"}, kc4...)...)
	ho, he, hf := pull(helm4, byDigest, "--version", "0.1.0", "--content-cache", h.path("helm-content"))
	if ko != ho || ke != he || kf != hf || ko != "" {
		t.Errorf("pull from the content cache:\n--- ours: stdout %q, stderr %q, files %s\n--- helm: stdout %q, stderr %q, files %s", ko, ke, kf, ho, he, hf)
	}
}

// anyDigest is s with its sha256 digests replaced by a placeholder.
func anyDigest(s string) string {
	return regexp.MustCompile(`sha256:[0-9a-f]{64}`).ReplaceAllString(s, "sha256:DIGEST")
}
