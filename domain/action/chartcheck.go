package action

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// CheckInstallable refuses, in Helm's words, charts that are not of type
// application (library charts).
func CheckInstallable(ch *chart.Chart) error {
	switch ch.Metadata.Type {
	case "", "application":
		return nil
	}
	return fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
}

// CheckDependencies fails, in Helm's words, when Chart.yaml lists a
// dependency that charts/ lacks (package says only this).
func CheckDependencies(ch *chart.Chart) error {
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

// CheckDependenciesFor is CheckDependencies as the dialect's install and
// template say it (with this program's command to run instead of Helm's).
func CheckDependenciesFor(d dialect.Dialect, ch *chart.Chart) error {
	err := CheckDependencies(ch)
	switch {
	case err == nil:
		return nil
	case d.IsHelm4():
		return fmt.Errorf("an error occurred while checking for chart dependencies. You may need to run 'kubectl chart dependency build' to fetch missing dependencies: %w", err)
	}
	return fmt.Errorf("An error occurred while checking for chart dependencies. You may need to run `kubectl chart dependency build` to fetch missing dependencies: %w", err) //nolint:staticcheck // Helm's sentence, users search for it
}

// checkDeployable is what every render of a release checks of its chart,
// whoever asks: that it is installable and has its dependencies. (The
// commands check the same earlier, where Helm does, between their warnings.)
func checkDeployable(d dialect.Dialect, ch *chart.Chart) error {
	if ch == nil || ch.Metadata == nil {
		return nil
	}
	if err := CheckInstallable(ch); err != nil {
		return err
	}
	return CheckDependenciesFor(d, ch)
}
