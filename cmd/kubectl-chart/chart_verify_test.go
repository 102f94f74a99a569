package main

import (
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// install, upgrade, template and show --verify check the chart against its
// provenance file and the keyring before using it, and refuse it in Helm's
// words: each refusal is compared with the Helm peers'.
func TestChartVerifyLikeHelm(t *testing.T) {
	peers := helmPeers(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("KUBECONFIG", filepath.Join(dir, "no-kubeconfig"))
	secret, public := testKeyrings(t, "Alice")
	_, other := testKeyrings(t, "Mallory")
	if _, stderr, err := runRoot(t, "create", "c"); err != nil {
		t.Fatal(err, stderr)
	}
	if _, stderr, err := runRoot(t, "package", "c", "--sign", "--key", "Alice", "--keyring", secret, "-d", "dist"); err != nil {
		t.Fatal(err, stderr)
	}
	archive := mustReadFile(t, "dist/c-0.1.0.tgz")
	prov := mustReadFile(t, "dist/c-0.1.0.tgz.prov")
	writeFiles(t, dir, map[string]string{
		"noprov/c-0.1.0.tgz":        string(archive),
		"tampered/c-0.1.0.tgz":      string(archive) + "x",
		"tampered/c-0.1.0.tgz.prov": string(prov),
		"unsigned/c-0.1.0.tgz":      string(archive),
		"unsigned/c-0.1.0.tgz.prov": "not signed\n",
	})

	// The same archives in an OCI registry: the .prov travels as a layer.
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	oci := "oci://" + strings.TrimPrefix(reg.URL, "http://")
	for _, push := range [][]string{{"dist/c-0.1.0.tgz", oci + "/signed"}, {"noprov/c-0.1.0.tgz", oci + "/noprov"}} {
		if _, stderr, err := runRoot(t, "push", push[0], push[1], "--plain-http"); err != nil {
			t.Fatal(err, stderr)
		}
	}

	v := func(archive, keyring string) []string { return []string{archive, "--keyring", keyring, "--verify"} }
	fromRegistry := func(repo, keyring string) []string {
		return []string{oci + "/" + repo + "/c", "--version", "0.1.0", "--plain-http", "--keyring", keyring, "--verify"}
	}
	cases := map[string][]string{
		"signed":                   v("dist/c-0.1.0.tgz", public),
		"unknown signer":           v("dist/c-0.1.0.tgz", other),
		"no provenance":            v("noprov/c-0.1.0.tgz", public),
		"tampered":                 v("tampered/c-0.1.0.tgz", public),
		"not signed":               v("unsigned/c-0.1.0.tgz", public),
		"chart directory":          v("c", public),
		"no keyring":               v("dist/c-0.1.0.tgz", "missing.gpg"),
		"registry: signed":         fromRegistry("signed", public),
		"registry: unknown signer": fromRegistry("signed", other),
		"registry: no provenance":  fromRegistry("noprov", public),
	}
	commands := map[string][]string{
		"install":    {"install", "web"},
		"upgrade":    {"upgrade", "web"},
		"template":   {"template", "web"},
		"show chart": {"show", "chart"},
	}
	errorsLikeHelm(t, peers, commands, cases, func(compat, command, caseName string) string {
		if caseName == "registry: no provenance" && compat == "helm4" {
			return "Helm 4.3.1 takes an OCI chart without a provenance layer as verified; we refuse it as Helm 3 does"
		}
		if (command == "install" || command == "upgrade") && strings.HasSuffix(caseName, "signed") && !strings.Contains(caseName, "unknown") {
			return "verified: the cluster comes next, there is none here"
		}
		return ""
	})
}

// errorsLikeHelm runs each command with each case's arguments beside the
// Helm peer of each dialect (--compat; helmPeers) and compares the errors;
// skip says why a pair is not run ("" runs it).
func errorsLikeHelm(t *testing.T, peers map[string]string, commands, cases map[string][]string, skip func(compat, command, caseName string) string) {
	t.Helper()
	for compat, helm := range peers {
		for cmdName, command := range commands {
			for caseName, extra := range cases {
				t.Run(compat+"/"+cmdName+"/"+caseName, func(t *testing.T) {
					if why := skip(compat, cmdName, caseName); why != "" {
						t.Skip(why)
					}
					args := append(append([]string{}, command...), extra...)
					want := peerError(t, helm, args...)
					_, _, err := runRoot(t, append(args, "--compat", compat)...)
					got := ""
					if err != nil {
						got = "Error: " + err.Error()
					}
					if got != want {
						t.Errorf("%s:\n got %q\nwant %q (Helm's)", strings.Join(args, " "), got, want)
					}
				})
			}
		}
	}
}

// helmPeers are the Helm peers by dialect; looked up before a test changes
// $HOME, where they are cached.
func helmPeers(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{"helm3": prereq.HelmPeer(t, "v3.22.0"), "helm4": prereq.HelmPeer(t, "v4.3.1")}
}

// peerError runs the Helm peer and returns its error: stderr from the line
// that starts with "Error: " (Helm 4 joins several errors, one a line), ""
// when it succeeds.
func peerError(t *testing.T, helm string, args ...string) string {
	t.Helper()
	out, err := exec.Command(helm, args...).CombinedOutput()
	if err == nil {
		return ""
	}
	if _, ok := err.(*exec.ExitError); !ok {
		t.Fatal(err)
	}
	s := string(out)
	if i := strings.Index(s, "Error: "); i >= 0 {
		s = s[i:]
	}
	return strings.TrimSuffix(s, "\n")
}

func mustReadFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
