package main

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestHumanText(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"plain":                  {"key a.b: Not a table.", "key a.b: Not a table."},
		"escape sequences":       {"a\x1b[2Jb\x1b]0;pwned\a", "a[2Jb]0;pwned"},
		"carriage return":        {"safe\rEVIL", "safe EVIL"},
		"C1 control":             {"x\u009b0m", "x0m"},
		"lines and tabs":         {"one\ttwo\nthree\x1b", "one two\nthree"},
		"printable non-ASCII":    {"ünïcode ✓", "ünïcode ✓"},
		"invalid UTF-8 and NULs": {"a\xff\x00b", "a\uFFFDb"},
		"a lone C1 byte":         {"x\x9by", "x\uFFFDy"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := humanText(tc.in); got != tc.want {
				t.Errorf("humanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// A value's key from a chart reaches Helm 3's warning lines without its
// control characters.
func TestHelm3WarningsStripControls(t *testing.T) {
	var b bytes.Buffer
	helm3Warn(&b)("warning: skipped value for %s.%s: Not a table.", "a\x1b[2J", "b\rc")
	if want := "coalesce.go:237: warning: skipped value for a[2J.b c: Not a table.\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// Release records are not to be trusted: list's table shows their text
// without control characters.
func TestListStripsControls(t *testing.T) {
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	r := porttest.Release("default", "web", 1, release.StatusDeployed)
	r.Chart.Metadata.Name = "evil\x1b]0;pwned\a"
	r.Chart.Metadata.AppVersion = "1\x1b[2J\r"
	if err := f.store.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	out, _, err := runLifecycle(t, f, "list", "--no-headers")
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out, "\x1b\r\a") {
		t.Fatalf("terminal controls reach the terminal: %q", out)
	}
	if !strings.Contains(out, "evil]0;pwned-1.1.0") || !strings.HasSuffix(out, "\t1[2J\n") {
		t.Errorf("list printed %q", out)
	}
}
