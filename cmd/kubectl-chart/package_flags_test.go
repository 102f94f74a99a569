package main

import (
	"os"
	"path/filepath"
	"testing"
)

// package's registry-client flags (Helm's --ca-file, --cert-file,
// --key-file, --username, ...) and repo add's refusal of a deleted official
// repository fail as in Helm v3.22.0 and v4.3.1: exit status, stdout and
// stderr byte for byte.
func TestPackageAndRepoAddFlagsLikeHelm(t *testing.T) {
	peers, dir := downloadFixture(t)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	commands := map[string][]string{
		"package: CA file missing":        {"package", "sub", "-d", "out", "--ca-file", missing},
		"package: CA file not PEM":        {"package", "sub", "-d", "out", "--ca-file", notPEM},
		"package: cert without key":       {"package", "sub", "-d", "out", "--cert-file", notPEM},
		"package: credentials, no update": {"package", "sub", "-d", "out", "--username", "u", "--password", "p", "--insecure-skip-tls-verify"},
		"repo add: deprecated repository": {"repo", "add", "stable", "https://kubernetes-charts.storage.googleapis.com/"},
		"repo add: deprecated incubator":  {"repo", "add", "inc", "https://kubernetes-charts-incubator.storage.googleapis.com", "--timeout", "1s"},
	}
	for compat, helm := range peers {
		for name, args := range commands {
			t.Run(compat+"/"+name, func(t *testing.T) {
				compareWithHelm(t, helm, compat, args, func() { _ = os.RemoveAll(filepath.Join(dir, "out")) })
			})
		}
	}
}
