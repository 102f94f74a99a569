package values

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// ProcessDependencies applies Chart.yaml's dependency rules to a loaded chart tree,
// as Helm does before rendering: aliases rename subcharts, tags and conditions
// drop disabled subcharts (recursively), and import-values copy subchart values
// into the parent's defaults. It changes the chart in place. User-supplied nulls are
// kept (Helm's "with merge" variant, used by install and upgrade).
func ProcessDependencies(ch *chart.Chart, vals map[string]any, warn Warn) error {
	return ProcessDependenciesFor(dialect.Helm3, ch, vals, warn)
}

// ProcessDependenciesFor is ProcessDependencies by the dialect's rules: Helm 4
// coalesces with its null rule (CoalesceFor) to evaluate conditions and tags, and
// gives each alias of a chart its own copy of the chart's dependency entries and
// subcharts, so two aliases of one chart no longer share (and spoil) them.
func ProcessDependenciesFor(d dialect.Dialect, ch *chart.Chart, vals map[string]any, warn Warn) error {
	if err := processEnabled(d, ch, vals, "", warn); err != nil {
		return err
	}
	return processImportValuesTree(ch, warn)
}

// IsCompatibleRange reports whether version satisfies the SemVer constraint; any
// parse failure means no.
func IsCompatibleRange(constraint, version string) bool {
	v, err := semver.NewVersion(version)
	if err != nil {
		return false
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	return c.Check(v)
}

func warnf(warn Warn, format string, args ...any) {
	if warn != nil {
		warn(format, args...)
	}
}

// aliasedDependency finds the loaded subchart a dependency entry refers to and
// returns a copy renamed to the alias. The copy shares the original's dependency
// entries and subcharts, except in Helm 4, which copies both (the subcharts
// shallowly) so that each alias keeps its own.
func aliasedDependency(d dialect.Dialect, charts []*chart.Chart, dep *chart.Dependency) *chart.Chart {
	for _, c := range charts {
		if c == nil || c.Name() != dep.Name || !IsCompatibleRange(dep.Version, c.Metadata.Version) {
			continue
		}
		out := *c
		md := *c.Metadata
		out.Metadata = &md
		if d.IsHelm4() {
			if md.Dependencies != nil {
				md.Dependencies = make([]*chart.Dependency, len(c.Metadata.Dependencies))
				for i, req := range c.Metadata.Dependencies {
					if req != nil {
						cp := *req
						md.Dependencies[i] = &cp
					}
				}
			}
			out.SetDependencies()
			for _, sub := range c.Dependencies() {
				cp := *sub
				out.AddDependency(&cp)
			}
		}
		if dep.Alias != "" {
			md.Name = dep.Alias
		}
		return &out
	}
	return nil
}

func processEnabled(d dialect.Dialect, ch *chart.Chart, vals map[string]any, path string, warn Warn) error {
	if ch.Metadata.Dependencies == nil {
		return nil
	}
	// Subcharts that no dependency entry claims stay as they are.
	var deps []*chart.Chart
outer:
	for _, existing := range ch.Dependencies() {
		for _, req := range ch.Metadata.Dependencies {
			if req != nil && existing.Name() == req.Name && IsCompatibleRange(req.Version, existing.Metadata.Version) {
				continue outer
			}
		}
		deps = append(deps, existing)
	}
	for _, req := range ch.Metadata.Dependencies {
		if req == nil {
			continue
		}
		if sub := aliasedDependency(d, ch.Dependencies(), req); sub != nil {
			deps = append(deps, sub)
		}
		if req.Alias != "" {
			req.Name = req.Alias
		}
	}
	ch.SetDependencies(deps...)

	for _, req := range ch.Metadata.Dependencies {
		req.Enabled = true
	}
	cvals, err := CoalesceFor(d, ch, vals, warn)
	if err != nil {
		return err
	}
	applyTags(ch.Metadata.Dependencies, cvals, warn)
	applyConditions(ch.Metadata.Dependencies, cvals, path, warn)

	disabled := map[string]bool{}
	for _, req := range ch.Metadata.Dependencies {
		if !req.Enabled {
			disabled[req.Name] = true
		}
	}
	var keep []*chart.Chart
	for _, sub := range ch.Dependencies() {
		if !disabled[sub.Metadata.Name] {
			keep = append(keep, sub)
		}
	}
	var keepReqs []*chart.Dependency
	for _, req := range ch.Metadata.Dependencies {
		if !disabled[req.Name] {
			keepReqs = append(keepReqs, req)
		}
	}
	for _, sub := range keep {
		if err := processEnabled(d, sub, cvals, path+sub.Metadata.Name+".", warn); err != nil {
			return err
		}
	}
	ch.Metadata.Dependencies = keepReqs
	ch.SetDependencies(keep...)
	return nil
}

// applyTags disables a dependency when its tags are set and none of them is true.
func applyTags(reqs []*chart.Dependency, cvals Values, warn Warn) {
	tags, err := cvals.Table("tags")
	if err != nil {
		return
	}
	for _, req := range reqs {
		var hasTrue, hasFalse bool
		for _, k := range req.Tags {
			v, ok := tags[k]
			if !ok {
				continue
			}
			b, ok := v.(bool)
			if !ok {
				warnf(warn, "Warning: Tag '%s' for chart %s returned non-bool value", k, req.Name)
				continue
			}
			if b {
				hasTrue = true
			} else {
				hasFalse = true
			}
		}
		if !hasTrue && hasFalse {
			req.Enabled = false
		} else if hasTrue || !hasFalse {
			req.Enabled = true
		}
	}
}

// applyConditions sets Enabled from the first condition path that holds a bool;
// conditions win over tags.
func applyConditions(reqs []*chart.Dependency, cvals Values, path string, warn Warn) {
	for _, req := range reqs {
		for _, cond := range strings.Split(strings.TrimSpace(req.Condition), ",") {
			if cond == "" {
				continue
			}
			v, err := cvals.PathValue(path + cond)
			if err != nil {
				if _, ok := err.(ErrNoValue); !ok {
					warnf(warn, "Warning: PathValue returned error %v", err)
				}
				continue
			}
			if b, ok := v.(bool); ok {
				req.Enabled = b
				break
			}
			warnf(warn, "Warning: Condition path '%s' for chart %s returned non-bool value", cond, req.Name)
		}
	}
}

func processImportValuesTree(ch *chart.Chart, warn Warn) error {
	for _, sub := range ch.Dependencies() {
		if err := processImportValuesTree(sub, warn); err != nil {
			return err
		}
	}
	return processImportValues(ch, warn)
}

// processImportValues copies values exported by subcharts into the chart's own
// defaults; the chart's values win.
func processImportValues(ch *chart.Chart, warn Warn) error {
	if ch.Metadata.Dependencies == nil {
		return nil
	}
	cvals, err := Merge(ch, nil, warn)
	if err != nil {
		return err
	}
	imported := map[string]any{}
	for _, req := range ch.Metadata.Dependencies {
		var normalized []any
		for _, iv := range req.ImportValues {
			switch iv := iv.(type) {
			case map[string]any:
				child, parent := fmt.Sprintf("%v", iv["child"]), fmt.Sprintf("%v", iv["parent"])
				normalized = append(normalized, map[string]string{"child": child, "parent": parent})
				table, err := cvals.Table(req.Name + "." + child)
				if err != nil {
					warnf(warn, "Warning: ImportValues missing table from chart %s: %v", req.Name, err)
					continue
				}
				imported = MergeTables(imported, pathToMap(parent, table.AsMap()), warn)
			case string:
				child := "exports." + iv
				normalized = append(normalized, map[string]string{"child": child, "parent": "."})
				table, err := cvals.Table(req.Name + "." + child)
				if err != nil {
					warnf(warn, "Warning: ImportValues missing table: %v", err)
					continue
				}
				imported = MergeTables(imported, table.AsMap(), warn)
			}
		}
		req.ImportValues = normalized
	}
	cvals, _ = DeepCopy(map[string]any(cvals)).(map[string]any)
	ch.Values = MergeTables(cvals, imported, warn)
	return nil
}

func pathToMap(path string, data map[string]any) map[string]any {
	if path == "." {
		return data
	}
	parts := strings.Split(path, ".")
	cur := data
	for i := len(parts) - 1; i >= 0; i-- {
		cur = map[string]any{parts[i]: cur}
	}
	return cur
}
