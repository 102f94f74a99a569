package chartsource

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Unlisted is what `dependency list` warns about after its table, in Helm's
// words: each directory or archive under the chart's charts/ that is no chart,
// or a chart Chart.yaml does not list, named by its path under dir.
func (l Local) Unlisted(ctx context.Context, dir string, listed []DependencyStatus) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "charts", "*"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", filepath.Join(dir, "charts"), err)
	}
	var warnings []string
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("Warning: %s", err))
			continue
		}
		if !fi.IsDir() && filepath.Ext(f) != ".tgz" {
			continue
		}
		c, err := l.LoadChart(ctx, f)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("WARNING: %q is not a chart.", f))
			continue
		}
		if !slices.ContainsFunc(listed, func(d DependencyStatus) bool { return d.Name == c.Name() }) {
			warnings = append(warnings, fmt.Sprintf("WARNING: %q is not in Chart.yaml.", f))
		}
	}
	return warnings, nil
}
