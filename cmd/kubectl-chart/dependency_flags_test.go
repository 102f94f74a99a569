package main

import (
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// dependency update and build with Helm's download flags, against a
// loopback chart repository (--verify, --keyring) and a loopback HTTPS
// registry with basic auth (--ca-file, --insecure-skip-tls-verify,
// --username, --password), each run beside both Helm peers: the same runs
// succeed, the same fail, and a refused signature reads the same.
func TestDependencyDownloadFlagsLikeHelm(t *testing.T) {
	peers := helmPeers(t)
	dir := t.TempDir()
	t.Chdir(dir)
	isolateHelmHome(t, dir)
	secret, public := testKeyrings(t, "Alice")
	_, other := testKeyrings(t, "Mallory")
	for _, args := range [][]string{
		{"create", "signed"}, {"create", "unsigned"},
		{"package", "signed", "--sign", "--key", "Alice", "--keyring", secret, "-d", "repo"},
		{"package", "unsigned", "-d", "repo"},
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

	// The registry: HTTPS with a CA of its own, and basic auth.
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	regSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(regSrv.Close)
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: regSrv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	oci := "oci://" + strings.TrimPrefix(regSrv.URL, "https://") + "/charts"
	if _, stderr, err := runRoot(t, "push", "repo/signed-0.1.0.tgz", oci, "--ca-file", ca, "--username", "alice", "--password", "s3cret"); err != nil {
		t.Fatal(err, stderr)
	}

	parent := func(name, dep, repository string) string {
		writeFiles(t, dir, map[string]string{name + "/Chart.yaml": "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\ndependencies:\n- name: " + dep +
			"\n  version: 0.1.0\n  repository: " + repository + "\n"})
		return name
	}
	signed, unsigned := parent("p-signed", "signed", repoSrv.URL), parent("p-unsigned", "unsigned", repoSrv.URL)
	fromRegistry := parent("p-oci", "signed", oci)
	creds := []string{"--username", "alice", "--password", "s3cret"}

	// Helm's build takes only configured repositories.
	runPeer(t, peers["helm3"], "repo", "add", "local", repoSrv.URL)

	tests := map[string]struct {
		args []string
		// want is the archive the run leaves in charts/; "" for a refusal.
		want string
		// lock has update write Chart.lock first, for build.
		lock bool
	}{
		"build --verify: signed":              {args: []string{"build", signed, "--verify", "--keyring", public}, lock: true, want: "signed-0.1.0.tgz"},
		"build --verify: unknown signer":      {args: []string{"build", signed, "--verify", "--keyring", other}, lock: true},
		"build --verify: no provenance":       {args: []string{"build", unsigned, "--verify", "--keyring", public}, lock: true, want: "unsigned-0.1.0.tgz"},
		"update --verify: signed":             {args: []string{"update", signed, "--verify", "--keyring", public}, want: "signed-0.1.0.tgz"},
		"update --verify: unknown signer":     {args: []string{"update", signed, "--verify", "--keyring", other}},
		"update --verify: no provenance":      {args: []string{"update", unsigned, "--verify", "--keyring", public}},
		"update without --verify: unsigned":   {args: []string{"update", unsigned}, want: "unsigned-0.1.0.tgz"},
		"registry: no CA":                     {args: append([]string{"update", fromRegistry}, creds...)},
		"registry: --ca-file, no credentials": {args: []string{"update", fromRegistry, "--ca-file", ca}},
		"registry: --ca-file":                 {args: append([]string{"update", fromRegistry, "--ca-file", ca}, creds...), want: "signed-0.1.0.tgz"},
		"registry: --insecure-skip-tls-verify": {args: append([]string{"update", fromRegistry, "--insecure-skip-tls-verify"}, creds...),
			want: "signed-0.1.0.tgz"},
		"registry: --verify":                 {args: append([]string{"update", fromRegistry, "--ca-file", ca, "--verify", "--keyring", public}, creds...), want: "signed-0.1.0.tgz"},
		"registry: --verify, unknown signer": {args: append([]string{"update", fromRegistry, "--ca-file", ca, "--verify", "--keyring", other}, creds...)},
		"registry: --ca-file missing":        {args: append([]string{"update", fromRegistry, "--ca-file", "missing.pem"}, creds...)},
	}
	for compat, helm := range peers {
		for name, tc := range tests {
			t.Run(compat+"/"+name, func(t *testing.T) {
				chart := tc.args[1]
				args := append([]string{"dependency"}, tc.args...)
				clean := func() {
					_ = os.RemoveAll(filepath.Join(chart, "charts"))
					_ = os.Remove(filepath.Join(chart, "Chart.lock"))
					if tc.lock {
						runPeer(t, helm, "dependency", "update", chart)
						_ = os.RemoveAll(filepath.Join(chart, "charts"))
					}
				}
				clean()
				want := peerError(t, helm, args...)
				helmCharts := chartsDir(t, chart)
				clean()
				_, stderr, err := runRoot(t, append(args, "--compat", compat)...)
				got := chartsDir(t, chart)
				clean()
				if got != helmCharts || got != tc.want {
					t.Errorf("charts/ holds %q; Helm's %q, want %q (err %v, Helm's %q)", got, helmCharts, tc.want, err, want)
				}
				if (err == nil) != (want == "") {
					t.Fatalf("error %v, Helm's %q\n%s", err, want, stderr)
				}
				// Refused signatures and missing provenance in Helm's words;
				// transport errors are each client's own.
				if err != nil && strings.Contains(name, "--verify") && "Error: "+err.Error() != want {
					t.Errorf("error %q, Helm's %q", "Error: "+err.Error(), want)
				}
			})
		}
	}
}

// chartsDir lists the archives in chart's charts/ directory.
func chartsDir(t *testing.T, chart string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(chart, "charts"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}
