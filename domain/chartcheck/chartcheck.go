// Package chartcheck holds what a chart must be for the dialect to deploy it:
// installable, its dependencies present, an API version it renders.
package chartcheck

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Installable refuses, in Helm's words, charts that are not of type
// application (library charts).
func Installable(ch *chart.Chart) error {
	switch ch.Metadata.Type {
	case "", "application":
		return nil
	}
	return fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
}

// Dependencies fails, in Helm's words, when Chart.yaml lists a
// dependency that charts/ lacks (package says only this).
func Dependencies(ch *chart.Chart) error {
	var missing []string
outer:
	for _, req := range ch.Metadata.Dependencies {
		for _, sub := range ch.Dependencies() {
			if sub.Name() == req.Name {
				continue outer
			}
		}
		missing = append(missing, req.Name)
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
}

// DependenciesFor is Dependencies as the dialect's install and
// template say it (with this program's command to run instead of Helm's).
func DependenciesFor(d dialect.Dialect, ch *chart.Chart) error {
	err := Dependencies(ch)
	switch {
	case err == nil:
		return nil
	case d.IsHelm4():
		return fmt.Errorf("an error occurred while checking for chart dependencies. You may need to run 'kubectl chart dependency build' to fetch missing dependencies: %w", err)
	}
	return fmt.Errorf("An error occurred while checking for chart dependencies. You may need to run `kubectl chart dependency build` to fetch missing dependencies: %w", err) //nolint:staticcheck // Helm's sentence, users search for it
}

// Deployable is what every render of a release checks of its chart,
// whoever asks: that it is installable and has its dependencies. (The
// commands check the same earlier, where Helm does, between their warnings.)
func Deployable(d dialect.Dialect, ch *chart.Chart) error {
	if ch == nil || ch.Metadata == nil {
		return nil
	}
	if err := Installable(ch); err != nil {
		return err
	}
	return DependenciesFor(d, ch)
}

// ErrInvalidAPIVersion is a chart the dialect loads but does not render, install
// or package: Helm 4 reads charts of API version v3 and refuses them there.
var ErrInvalidAPIVersion = errors.New("invalid chart apiVersion")

// SupportedAPIVersion fails with ErrInvalidAPIVersion for a chart of API
// version v3 in the Helm 4 dialect.
func SupportedAPIVersion(d dialect.Dialect, ch *chart.Chart) error {
	if d.IsHelm4() && ch.Metadata != nil && ch.Metadata.APIVersion == apiVersionV3 {
		return ErrInvalidAPIVersion
	}
	return nil
}

// apiVersionV3 is the chart API version that Helm 4 introduced and keeps
// behind its own rules.
const apiVersionV3 = "v3"
