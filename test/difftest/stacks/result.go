package stacks

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

// Result is one case run by helmfile and by us.
type Result struct {
	Helmfile, Ours runner.Outcome
}

// Aspects are the streams that differ: stdout, stderr, exit. When both
// programs fail there are none: the words of a failure are each program's
// (docs/stacks.md).
func (r Result) Aspects() []string {
	h, o := r.Helmfile, r.Ours
	if h.Exit != 0 && o.Exit != 0 {
		return nil
	}
	var aspects []string
	if h.Stdout != o.Stdout {
		aspects = append(aspects, "stdout")
	}
	if h.Stderr != o.Stderr {
		aspects = append(aspects, "stderr")
	}
	if h.Exit != o.Exit {
		aspects = append(aspects, "exit")
	}
	return aspects
}

// Differs reports whether the case shows a difference.
func (r Result) Differs() bool { return len(r.Aspects()) > 0 }

// Signature identifies a difference for the shrinker to keep: the streams
// that differ, both exit statuses (a candidate helmfile refuses is not the
// same valid input) and, per differing stream, the first pair of lines where
// the two programs part.
func (r Result) Signature() string {
	aspects := r.Aspects()
	return fmt.Sprintf("%q|%d|%d", aspects, r.Helmfile.Exit, r.Ours.Exit) + runner.PartingSignature(aspects, r.texts)
}

func (r Result) texts(aspect string) (string, string) {
	switch aspect {
	case "stdout":
		return r.Helmfile.Stdout, r.Ours.Stdout
	case "stderr":
		return r.Helmfile.Stderr, r.Ours.Stderr
	}
	return "", ""
}

// Describe says what differs: the exit statuses, per differing stream the
// first lines where the programs part, and both programs' stderr.
func (r Result) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "differs in: %s\nhelmfile: exit %d\nours: exit %d\n", strings.Join(r.Aspects(), ", "), r.Helmfile.Exit, r.Ours.Exit)
	for _, a := range r.Aspects() {
		if h, o := r.texts(a); h != o {
			hl, ol := runner.PartingLines(h, o)
			fmt.Fprintf(&b, "%s parts at:\n  helmfile: %q\n  ours:     %q\n", a, hl, ol)
		}
	}
	fmt.Fprintf(&b, "helmfile stderr:\n%sour stderr:\n%s", indent(r.Helmfile.Stderr), indent(r.Ours.Stderr))
	return b.String()
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
