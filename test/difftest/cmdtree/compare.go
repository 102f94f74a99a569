package cmdtree

import (
	"fmt"
	"strings"
)

// Outcome is what a program did with a probe.
type Outcome struct {
	Stdout, Stderr string
	Exit           int
}

// Difference is how ours differs from Helm on one probe.
type Difference struct {
	Probe Probe
	// Aspects that differ: stdout, help (a help's structure), stderr, exit.
	Aspects    []string
	Helm, Ours Outcome
}

// Compare compares ours with Helm on probe p: a help output by its
// structure (README's help-prose rule), everything else byte for byte. ok
// is true when they agree.
func Compare(p Probe, helm, ours Outcome) (Difference, bool) {
	d := Difference{Probe: p, Helm: helm, Ours: ours}
	hh, helmHelp := ParseHelp(helm.Stdout)
	oh, oursHelp := ParseHelp(ours.Stdout)
	switch {
	case helmHelp && oursHelp:
		if hh.String() != oh.String() {
			d.Aspects = append(d.Aspects, "help")
		}
	case helm.Stdout != ours.Stdout:
		d.Aspects = append(d.Aspects, "stdout")
	}
	if helm.Stderr != ours.Stderr {
		d.Aspects = append(d.Aspects, "stderr")
	}
	if helm.Exit != ours.Exit {
		d.Aspects = append(d.Aspects, "exit")
	}
	return d, len(d.Aspects) == 0
}

// Class names a difference's kind for counting: the probe's kind and the
// aspects.
func (d Difference) Class() string {
	return d.Probe.Kind + " " + strings.Join(d.Aspects, ",")
}

// Describe is a readable account of the difference.
func (d Difference) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\ndiffers in: %s\n", d.Probe, strings.Join(d.Aspects, ", "))
	fmt.Fprintf(&b, "helm: exit %d\nours: exit %d\n", d.Helm.Exit, d.Ours.Exit)
	for _, a := range d.Aspects {
		switch a {
		case "help":
			hh, _ := ParseHelp(d.Helm.Stdout)
			oh, _ := ParseHelp(d.Ours.Stdout)
			b.WriteString(lineDiff("help", hh.String(), oh.String()))
		case "stdout":
			b.WriteString(lineDiff("stdout", d.Helm.Stdout, d.Ours.Stdout))
		case "stderr":
			b.WriteString(lineDiff("stderr", d.Helm.Stderr, d.Ours.Stderr))
		}
	}
	return b.String()
}

// lineDiff lists the lines only one side has, in order (at most 12 a side).
func lineDiff(what, helm, ours string) string {
	hs, os := strings.Split(helm, "\n"), strings.Split(ours, "\n")
	in := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	hm, om := in(hs), in(os)
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", what)
	show := func(who string, lines []string, other map[string]bool) {
		n := 0
		for _, l := range lines {
			if !other[l] {
				if n == 12 {
					fmt.Fprintf(&b, "  %s: ...\n", who)
					return
				}
				fmt.Fprintf(&b, "  %s: %q\n", who, l)
				n++
			}
		}
	}
	show("helm", hs, om)
	show("ours", os, hm)
	if helm != ours && !strings.Contains(b.String(), ": \"") {
		fmt.Fprintf(&b, "  same lines, another order:\n  helm: %q\n  ours: %q\n", helm, ours)
	}
	return b.String()
}
