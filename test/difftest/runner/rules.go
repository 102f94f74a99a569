package runner

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/redact"
)

var unpackingSubchart = regexp.MustCompile(`error unpacking subchart [^ ]+ in `)

// Rule is a known, intended difference from Helm (README.md, "Intended differences from
// Helm", where each is listed by its name). A rule rewrites both outcomes so that the
// difference it names no longer shows; the runner knows differences only by such named
// rules, never by a case.
type Rule struct {
	Name   string
	Reason string
	Apply  func(helm, ours *Outcome)
	// Rerun, when set, says of outcomes that still differ after the rules whether Helm's
	// may be one of several it picks at random: Helm is then run again (up to
	// helmReruns times) and a run that agrees with ours is taken.
	Rerun func(helm, ours Outcome) bool
}

// helmReruns bounds the runs again of Helm for a Rerun rule: with two choices at each of
// two levels, missing ours every time is (3/4)^48, about one in a million, so a bounded
// run in make test does not fail by chance.
const helmReruns = 48

// rules are the documented differences.
func rules() []Rule {
	return []Rule{
		{
			Name:   "program-name",
			Reason: "errors keep Helm's words; the program is `kubectl chart` where Helm says `helm` (README: the missing-dependency message points to `kubectl chart dependency build`)",
			Apply: func(_, ours *Outcome) {
				ours.ErrLine = strings.ReplaceAll(ours.ErrLine, "kubectl chart", "helm")
				ours.ErrLine = strings.ReplaceAll(ours.ErrLine, "kubectl-chart", "helm")
			},
		},
		{
			Name:   "render-budget",
			Reason: "where Helm runs past the time limit, is killed or runs out of memory (a template building a value of exabytes, until 2^63, ends in the OOM killer, or under the runner's memory limit in Go's out-of-memory error), kubectl chart stops at its render budget and names the limit (README: render budget)",
			Apply: func(helm, ours *Outcome) {
				// lint reports the render's error among its findings, on stdout.
				budget := strings.Contains(ours.ErrLine, "render budget exceeded") || strings.Contains(ours.Stdout, "render budget exceeded")
				if (helm.Hung || helm.Exit == -1 || helm.OutOfMemory) && !ours.Hung && ours.Crash == "" && budget {
					*helm = *ours
				}
			},
		},
		{
			Name:   "terminal-safe-errors",
			Reason: "errors can quote untrusted text (a value, a template's output); kubectl chart prints them without the control characters a terminal would act on and with U+FFFD for bytes that are not UTF-8 (a lone 0x9b is CSI to a terminal not in UTF-8), where Helm prints the raw bytes (README: intended differences)",
			Apply: func(helm, _ *Outcome) {
				helm.ErrLine = redact.Terminal(helm.ErrLine)
			},
		},
		{
			Name:   "subchart-load-error-order",
			Reason: "when several subcharts fail to load, Helm reports one picked by Go's random map order; we report the first by name (at every level)",
			Apply: func(helm, ours *Outcome) {
				helm.ErrLine = unpackingSubchart.ReplaceAllString(helm.ErrLine, "error unpacking subchart * in ")
				ours.ErrLine = unpackingSubchart.ReplaceAllString(ours.ErrLine, "error unpacking subchart * in ")
			},
			// The failing subcharts may fail differently: Helm is asked again until it picks ours.
			// lint prints the load error in its findings, once for each rule that loads the chart.
			Rerun: func(helm, ours Outcome) bool {
				if helm.Exit != ours.Exit {
					return false
				}
				if helm.Stdout == ours.Stdout {
					return strings.HasPrefix(helm.ErrLine, "Error: error unpacking subchart ") &&
						strings.HasPrefix(ours.ErrLine, "Error: error unpacking subchart ")
				}
				return helm.ErrLine == ours.ErrLine && strings.Contains(helm.Stdout, "error unpacking subchart ") &&
					withoutSubchartErrors(helm.Stdout) == withoutSubchartErrors(ours.Stdout)
			},
		},
		{
			Name:   "failed-render-dump-order",
			Reason: "when rendered manifests do not parse, Helm's --debug output dumps every rendered file in Go's random map order; we dump them sorted by name",
			Apply: func(helm, ours *Outcome) {
				if helm.Exit != 0 && ours.Exit != 0 {
					helm.Stdout = sortedSourceBlocks(helm.Stdout)
					ours.Stdout = sortedSourceBlocks(ours.Stdout)
				}
			},
		},
	}
}

// withoutSubchartErrors is s without the lines that report a subchart's load error.
func withoutSubchartErrors(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.Contains(l, "error unpacking subchart ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// sortedSourceBlocks orders the "---\n# Source: NAME" blocks of a manifest dump by
// their text, each without the line breaks that end it (the dump's last is trimmed).
func sortedSourceBlocks(s string) string {
	const sep = "---\n# Source: "
	if !strings.HasPrefix(s, sep) {
		return s
	}
	blocks := strings.Split(s[len(sep):], "\n"+sep)
	for i, b := range blocks {
		blocks[i] = strings.TrimRight(b, "\n")
	}
	slices.Sort(blocks)
	return sep + strings.Join(blocks, "\n"+sep) + "\n"
}

// rerunHelm reports whether a rule asks for Helm to be run again on outcomes that differ.
func rerunHelm(res Result) bool {
	for _, rule := range rules() {
		if rule.Rerun != nil && rule.Rerun(res.Helm, res.Ours) {
			return true
		}
	}
	return false
}
