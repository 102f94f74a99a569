package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// install, upgrade, template and show --verify check the chart against its
// provenance file and the keyring before using it, and refuse it in Helm's
// words: each refusal is compared with the Helm peers'.
func TestChartVerifyLikeHelm(t *testing.T) {
	peers := map[string]string{"helm3": peerHelm(t, "v3.22.0"), "helm4": peerHelm(t, "v4.3.1")}
	dir := t.TempDir()
	t.Chdir(dir)
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

	cases := map[string][]string{
		"signed":          {"dist/c-0.1.0.tgz", "--keyring", public},
		"unknown signer":  {"dist/c-0.1.0.tgz", "--keyring", other},
		"no provenance":   {"noprov/c-0.1.0.tgz", "--keyring", public},
		"tampered":        {"tampered/c-0.1.0.tgz", "--keyring", public},
		"not signed":      {"unsigned/c-0.1.0.tgz", "--keyring", public},
		"chart directory": {"c", "--keyring", public},
		"no keyring":      {"dist/c-0.1.0.tgz", "--keyring", "missing.gpg"},
	}
	commands := map[string][]string{
		"install":    {"install", "web"},
		"upgrade":    {"upgrade", "web"},
		"template":   {"template", "web"},
		"show chart": {"show", "chart"},
	}
	for compat, helm := range peers {
		for cmdName, command := range commands {
			for caseName, args := range cases {
				t.Run(compat+"/"+cmdName+"/"+caseName, func(t *testing.T) {
					args := append(append(append([]string{}, command...), args...), "--verify")
					cluster := command[0] == "install" || command[0] == "upgrade"
					if cluster && caseName == "signed" {
						t.Skip("verified: the cluster comes next, there is none here")
					}
					want := peerStderr(t, helm, args...)
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

// peerStderr runs the Helm peer and returns the last line of its stderr,
// "" when it succeeds.
func peerStderr(t *testing.T, helm string, args ...string) string {
	t.Helper()
	cmd := exec.Command(helm, args...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return ""
	}
	if _, ok := err.(*exec.ExitError); !ok {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func mustReadFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
