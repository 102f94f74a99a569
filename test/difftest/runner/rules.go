package runner

import (
	"regexp"
	"strings"
)

var unpackingSubchart = regexp.MustCompile(`error unpacking subchart [^ ]+ in `)

// Rule is a known, intended difference from Helm (README.md, "Documented differences from
// Helm"). A rule rewrites both outcomes so that the difference it names no longer shows; the
// runner knows differences only by such named rules, never by a case.
type Rule struct {
	Name   string
	Reason string
	Apply  func(helm, ours *Outcome)
}

// Rules are the documented differences.
var Rules = []Rule{
	{
		Name:   "program-name",
		Reason: "errors keep Helm's words; the program is `kubectl chart` where Helm says `helm` (README: the missing-dependency message points to `kubectl chart dependency build`)",
		Apply: func(_, ours *Outcome) {
			ours.ErrLine = strings.ReplaceAll(ours.ErrLine, "kubectl chart", "helm")
			ours.ErrLine = strings.ReplaceAll(ours.ErrLine, "kubectl-chart", "helm")
		},
	},
	{
		Name:   "subchart-load-error-order",
		Reason: "when several subcharts fail to load, Helm reports one picked by Go's random map order; we report the first by name",
		Apply: func(helm, ours *Outcome) {
			helm.ErrLine = unpackingSubchart.ReplaceAllString(helm.ErrLine, "error unpacking subchart * in ")
			ours.ErrLine = unpackingSubchart.ReplaceAllString(ours.ErrLine, "error unpacking subchart * in ")
		},
	},
}
