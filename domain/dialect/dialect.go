// Package dialect names the Helm release whose rendering kubectl-chart reproduces:
// Helm 4 (v4.3.1) or Helm 3 (v3.22.0). The two differ in what a chart can see —
// how rendered documents are separated, which template functions exist, how chart
// default nulls merge, how values files with several documents read, what
// .Chart and .Capabilities hold — and a dialect is passed down to the code that
// makes each of those choices, as a plain value.
package dialect

import "fmt"

// Dialect is a Helm major version's rendering rules. The zero value is Helm 3, the
// dialect kubectl-chart rendered before there was a choice, so code that does not
// say otherwise keeps its output.
type Dialect string

const (
	// Helm3 renders as Helm v3.22.0.
	Helm3 Dialect = "helm3"
	// Helm4 renders as Helm v4.3.1.
	Helm4 Dialect = "helm4"
)

// Default is the dialect of commands that render without a release to follow:
// template, lint, show and new installs.
const Default = Helm4

// EnvVar names the environment variable that chooses the dialect when no --compat
// flag is given.
const EnvVar = "KUBECTL_CHART_COMPAT"

// Parse reads a dialect name as the --compat flag and KUBECTL_CHART_COMPAT take it.
func Parse(s string) (Dialect, error) {
	switch Dialect(s) {
	case Helm3:
		return Helm3, nil
	case Helm4:
		return Helm4, nil
	}
	return "", fmt.Errorf("invalid compat value %q: must be %q or %q", s, Helm4, Helm3)
}

// IsHelm4 reports whether d follows Helm 4's rules.
func (d Dialect) IsHelm4() bool { return d == Helm4 }

// String is the dialect's name ("helm3" for the zero value).
func (d Dialect) String() string {
	if d == "" {
		return string(Helm3)
	}
	return string(d)
}

// HelmVersion is the Helm release the dialect reproduces, as .Capabilities.HelmVersion
// shows it.
func (d Dialect) HelmVersion() string {
	if d.IsHelm4() {
		return "v4.3.1"
	}
	return "v3.22.0"
}
