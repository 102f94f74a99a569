package stacks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Runner runs both programs in the case's directory with the case's flags,
// and what they print names that directory CASE.
func TestRunnerRunsBothInTheCase(t *testing.T) {
	bin := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(bin, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := Runner{
		Helmfile: script("helmfile", `echo "$@"; cat helmfile.yaml.gotmpl; echo "at $PWD" >&2`),
		Ours:     script("ours", `echo "$@"; echo "at $PWD/x" >&2; exit 1`),
		Helm:     "HELM", Compat: "helm3",
	}
	res, err := r.Run(context.Background(), Case{Files: map[string]string{stateFile: "releases: []\n"}, Args: []string{"-e", "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "--helm-binary HELM template --concurrency 1 -e prod\nreleases: []\n"; res.Helmfile.Stdout != want || res.Helmfile.Stderr != "at CASE\n" {
		t.Errorf("helmfile printed %q and %q", res.Helmfile.Stdout, res.Helmfile.Stderr)
	}
	if res.Ours.Stdout != "stack template --compat helm3 -e prod\n" || res.Ours.Stderr != "at CASE/x\n" || res.Ours.Exit != 1 {
		t.Errorf("we printed %q and %q, exit %d", res.Ours.Stdout, res.Ours.Stderr, res.Ours.Exit)
	}
}
