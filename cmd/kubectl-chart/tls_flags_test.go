package main

import (
	"path/filepath"
	"testing"
)

// Unusable --ca-file, --cert-file and --key-file are refused before anything
// is downloaded, by every command that has them, in each Helm's words.
func TestTLSFilesLikeHelm(t *testing.T) {
	peers := helmPeers(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("KUBECONFIG", filepath.Join(dir, "no-kubeconfig"))
	writeFiles(t, dir, map[string]string{"garbage.pem": "not a certificate\n", "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"})
	cases := map[string][]string{
		"CA file missing":             {"--ca-file", "missing.pem"},
		"CA file not PEM":             {"--ca-file", "garbage.pem"},
		"certificate missing":         {"--cert-file", "missing.crt", "--key-file", "missing.key"},
		"certificate not PEM":         {"--cert-file", "garbage.pem", "--key-file", "garbage.pem"},
		"everything missing":          {"--cert-file", "missing.crt", "--key-file", "missing.key", "--ca-file", "missing.pem"},
		"key without certificate, CA": {"--key-file", "garbage.pem", "--ca-file", "garbage.pem"},
	}
	commands := map[string][]string{
		"install":           {"install", "web", "c"},
		"upgrade":           {"upgrade", "web", "c"},
		"template":          {"template", "web", "c"},
		"show chart":        {"show", "chart", "c"},
		"pull":              {"pull", "oci://127.0.0.1:1/charts/c"},
		"dependency update": {"dependency", "update", "c"},
		"dependency build":  {"dependency", "build", "c"},
	}
	errorsLikeHelm(t, peers, commands, cases, func(string, string, string) string { return "" })
}
