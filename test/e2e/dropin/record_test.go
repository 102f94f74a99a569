//go:build e2e

package dropin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder stands in for `helm`: it runs the program a link named helm points
// at (so that it still runs as helm), passes on what it printed and keeps a
// copy in the side's log.
const recorder = `#!/bin/sh
out=$(mktemp) err=$(mktemp)
'%[1]s' "$@" >"$out" 2>"$err"
code=$?
{ printf '$ helm'; printf ' %%s' "$@"; printf ' (exit %%d)\n' "$code"; cat "$out" "$err"; echo; } >>'%[2]s'
cat "$out"; cat "$err" >&2
rm -f "$out" "$err"
exit "$code"
`

// recordHelm puts the recorder in place of the side's `helm` links.
// chart-testing v3.7.1 reads a command's output while it waits for the
// command's exit, and the wait closes the pipes: what a quick command printed
// last is often lost (with Helm as with us, more often the quicker the
// command). So ct's own lines are compared without helm's, and what helm
// printed is compared from this copy.
func (s *side) recordHelm(t *testing.T) {
	t.Helper()
	s.helmLog = filepath.Join(filepath.Dir(s.dir), "helm.log")
	for i, dir := range []string{s.pathOwn, s.pathHelm} {
		link := filepath.Join(dir, "helm")
		target, err := os.Readlink(link)
		if err != nil {
			t.Fatal(err)
		}
		real := filepath.Join(filepath.Dir(s.dir), fmt.Sprintf("real-%d", i), "helm")
		if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, real); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(real+s.helmLog, '\'') {
			t.Fatalf("a path with a quote: %s", real+s.helmLog)
		}
		if err := os.WriteFile(link, fmt.Appendf(nil, recorder, real, s.helmLog), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// takeHelmLog returns what helm printed since the last call, and forgets it.
func (s *side) takeHelmLog(t *testing.T) string {
	data, err := os.ReadFile(s.helmLog)
	if err != nil && !os.IsNotExist(err) {
		t.Errorf("read %s: %v", s.helmLog, err)
	}
	if err := os.Remove(s.helmLog); err != nil && !os.IsNotExist(err) {
		t.Errorf("remove %s: %v", s.helmLog, err)
	}
	return string(data)
}

// withoutLines drops from text its empty lines and those that appear in
// printed (both masked): ct's own lines, without what it passed on of helm's.
func withoutLines(text, printed string) string {
	seen := map[string]bool{}
	for _, l := range strings.Split(printed, "\n") {
		seen[l] = true
	}
	var kept []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" && !seen[l] {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

func TestWithoutLines(t *testing.T) {
	for name, c := range map[string]struct{ text, printed, want string }{
		"helm's lines and empty lines go": {
			"Linting chart \"probe\"\n==> Linting charts/probe\n\nAll charts linted successfully\n",
			"$ helm lint charts/probe (exit 0)\n==> Linting charts/probe\n\n",
			"Linting chart \"probe\"\nAll charts linted successfully",
		},
		"a line helm did not print stays": {"Error: release web failed\n", "release \"web\" uninstalled\n", "Error: release web failed"},
	} {
		if got := withoutLines(c.text, c.printed); got != c.want {
			t.Errorf("%s: withoutLines = %q, want %q", name, got, c.want)
		}
	}
}
