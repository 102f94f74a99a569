// Package dialect names the Helm release whose rendering kubectl-chart reproduces:
// Helm 4 (v4.3.1) or Helm 3 (v3.22.0). The two differ in what a chart can see —
// how rendered documents are separated, which template functions exist, how chart
// default nulls merge, how values files with several documents read, what
// .Chart and .Capabilities hold — and a dialect is passed down to the code that
// makes each of those choices, as a plain value.
package dialect

import (
	"errors"
	"fmt"
)

// Dialect is a Helm major version's rendering rules. The zero value is Unset:
// no choice made. It is not Helm 3 nor the default; the use cases refuse it
// (Check), so a caller that forgot to resolve the dialect (--compat,
// KUBECTL_CHART_COMPAT, the release's own) fails instead of rendering as
// either Helm by accident.
type Dialect string

const (
	// Unset is no dialect chosen yet.
	Unset Dialect = ""
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

// String is the dialect's name ("unset" for the zero value).
func (d Dialect) String() string {
	if d == Unset {
		return "unset"
	}
	return string(d)
}

// ErrUnset is a use case reached with no dialect chosen.
var ErrUnset = errors.New("no Helm dialect chosen (--compat, " + EnvVar + " or the release's own): the zero value is refused, not taken for Helm 3")

// Check refuses a dialect that is not one of Helm3 and Helm4: ErrUnset for
// the zero value.
func (d Dialect) Check() error {
	switch d {
	case Helm3, Helm4:
		return nil
	case Unset:
		return ErrUnset
	}
	return fmt.Errorf("unknown Helm dialect %q", string(d))
}

// HelmVersion is the Helm release the dialect reproduces, as .Capabilities.HelmVersion
// shows it.
func (d Dialect) HelmVersion() string {
	if d.IsHelm4() {
		return "v4.3.1"
	}
	return "v3.22.0"
}
