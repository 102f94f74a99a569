// Package sequence orders a release's objects in stages, as HIP-0025
// ("Better Support for Resource Creation Sequencing") describes: subcharts
// first, in the order their dependencies declare, each chart's own objects
// by resource groups, and each stage ready before the next.
package sequence

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// Annotations of HIP-0025.
const (
	// AnnotationResourceGroup names the resource group of an object.
	AnnotationResourceGroup = "helm.sh/resource-group"
	// AnnotationDependsOnGroups lists (JSON) the groups of the same chart that
	// must be ready before an object's group. It is not a valid annotation
	// key for the API server (two slashes): it is removed before applying.
	AnnotationDependsOnGroups = "helm.sh/depends-on/resource-groups"
	// AnnotationDependsOnSubcharts, in Chart.yaml, lists (JSON) the
	// subcharts that must be ready before the chart's own objects.
	AnnotationDependsOnSubcharts = "helm.sh/depends-on/subcharts"
	// AnnotationReadinessSuccess and AnnotationReadinessFailure list (JSON)
	// readiness expressions; AnnotationReadinessTimeout bounds the wait.
	AnnotationReadinessSuccess = "helm.sh/readiness-success"
	AnnotationReadinessFailure = "helm.sh/readiness-failure"
	AnnotationReadinessTimeout = "helm.sh/readiness-timeout"
)

// StrategyOrdered is the wait strategy that sequences a release (--wait=ordered).
const StrategyOrdered = "ordered"

// Item is one object of a release.
type Item struct {
	// Chart is the path of the chart that rendered it: its names from the
	// top chart down ("web", "web/db" ...: the charts/ directories of its
	// template's source path).
	Chart []string
	// Name names it in messages ("ConfigMap prod/settings").
	Name string
	// Key identifies it (an object rendered twice has one key).
	Key         string
	Annotations map[string]string
}

// Batch is objects applied together, after every earlier batch is ready.
type Batch struct {
	Chart []string
	// Groups are the resource groups of the batch (one level of the chart's
	// group graph); empty for the chart's objects outside groups.
	Groups []string
	// Items index the items given to Order, in their order.
	Items []int
}

// Label names a batch as HIP-0025's template markers do: "web/db database",
// or the chart alone for objects outside groups.
func (b Batch) Label() string {
	if len(b.Groups) == 0 {
		return strings.Join(b.Chart, "/")
	}
	return strings.Join(b.Chart, "/") + " " + strings.Join(b.Groups, ", ")
}

// Result is the order of a release's objects.
type Result struct {
	Batches []Batch
	// Warnings are findings that do not stop an operation.
	Warnings []string
	// Ignored are declarations read as none because they are malformed:
	// Helm loads and installs such a chart, so they are only reported (on
	// stderr), never refused, and they order nothing.
	Ignored []string
}

// OrderError lists what makes an order impossible: cycles, dependencies on
// groups or subcharts that do not exist, an object in two groups, malformed
// annotations.
type OrderError struct {
	Problems []string
}

func (e *OrderError) Error() string {
	return "cannot order the release's objects (HIP-0025): " + strings.Join(e.Problems, "; ")
}

// Declared reports whether a chart asks for sequencing: an object with
// resource-group annotations, or a chart of the tree whose dependencies
// declare depends-on.
func Declared(ch *chart.Chart, items []Item) bool {
	for _, it := range items {
		if _, ok := it.Annotations[AnnotationResourceGroup]; ok {
			return true
		}
		if _, ok := it.Annotations[AnnotationDependsOnGroups]; ok {
			return true
		}
	}
	return chartDeclares(ch)
}

func chartDeclares(ch *chart.Chart) bool {
	if ch == nil {
		return false
	}
	if md := ch.Metadata; md != nil {
		if raw, ok := md.Annotations[AnnotationDependsOnSubcharts]; ok {
			if _, err := StringList(raw); err == nil {
				return true
			}
		}
		for _, d := range md.Dependencies {
			if d != nil && len(d.DependsOn) > 0 {
				return true
			}
		}
	}
	return slices.ContainsFunc(ch.Dependencies(), chartDeclares)
}

// ChartPath reads the chart path from a template's source path
// ("web/charts/db/templates/x.yaml" is web/db).
func ChartPath(source string) []string {
	parts := strings.Split(source, "/")
	if len(parts) == 0 || parts[0] == "" {
		return nil
	}
	out := []string{parts[0]}
	for i := 1; i+1 < len(parts) && parts[i] == "charts"; i += 2 {
		out = append(out, parts[i+1])
	}
	return out
}

// Order orders items (rendered by ch) in batches: per chart, its subcharts
// first — in the order of the graph their depends-on fields and annotations
// make, one after another within a level, each with its own order — then
// the chart's resource groups level by level, then its objects outside
// groups. Hooks are not items: they keep their weights.
func Order(ch *chart.Chart, items []Item) (*Result, error) {
	o := &orderer{items: items, res: &Result{}}
	all := make([]int, len(items))
	for i := range items {
		all[i] = i
	}
	root := []string{}
	if ch != nil && ch.Metadata != nil {
		root = []string{ch.Name()}
	}
	o.level(ch, root, all)
	if len(o.problems) > 0 {
		return nil, &OrderError{Problems: o.problems}
	}
	return o.res, nil
}

type orderer struct {
	items    []Item
	res      *Result
	problems []string
}

func (o *orderer) problem(format string, args ...any) {
	o.problems = append(o.problems, fmt.Sprintf(format, args...))
}

// level orders the items of one chart (at path) and its subcharts.
func (o *orderer) level(ch *chart.Chart, path []string, idx []int) {
	name := strings.Join(path, "/")
	var own []int
	sub := map[string][]int{}
	for _, i := range idx {
		c := o.items[i].Chart
		if len(c) > len(path) && slices.Equal(c[:len(path)], path) {
			sub[c[len(path)]] = append(sub[c[len(path)]], i)
		} else {
			own = append(own, i)
		}
	}
	for _, level := range o.subchartLevels(ch, name, sub) {
		for _, s := range level {
			if len(sub[s]) > 0 {
				o.level(subchart(ch, s), append(slices.Clip(path), s), sub[s])
			}
		}
	}
	o.groups(name, path, own)
}

func subchart(ch *chart.Chart, name string) *chart.Chart {
	if ch == nil {
		return nil
	}
	for _, d := range ch.Dependencies() {
		if d.Name() == name {
			return d
		}
	}
	return nil
}

// subchartLevels orders a chart's subcharts (those rendered, and those its
// items came from) by their depends-on fields.
func (o *orderer) subchartLevels(ch *chart.Chart, name string, sub map[string][]int) [][]string {
	nodes := map[string]bool{}
	for s := range sub {
		nodes[s] = true
	}
	if ch == nil || ch.Metadata == nil {
		return levels(o, "subcharts of chart "+name, nodes, nil)
	}
	for _, d := range ch.Dependencies() {
		nodes[d.Name()] = true
	}
	declared := map[string]bool{}
	for _, d := range ch.Metadata.Dependencies {
		if d != nil {
			declared[d.Name] = true
			declared[d.Alias] = true
		}
	}
	if raw, ok := ch.Metadata.Annotations[AnnotationDependsOnSubcharts]; ok {
		names, err := StringList(raw)
		if err != nil {
			o.res.Ignored = append(o.res.Ignored, fmt.Sprintf("chart %s: annotation %s is ignored: %v", name, AnnotationDependsOnSubcharts, err))
		}
		for _, n := range names {
			if !declared[n] {
				o.problem("chart %s: annotation %s names %q, which is not one of its dependencies", name, AnnotationDependsOnSubcharts, n)
			}
		}
	}
	deps := map[string][]string{}
	for _, d := range ch.Metadata.Dependencies {
		if d == nil || len(d.DependsOn) == 0 {
			continue
		}
		node := d.Name
		if d.Alias != "" {
			node = d.Alias
		}
		for _, t := range d.DependsOn {
			switch {
			case !declared[t]:
				o.problem("chart %s: dependency %q depends on %q, which is not one of its dependencies", name, node, t)
			case nodes[node] && nodes[t]:
				deps[node] = append(deps[node], t)
			}
			// A disabled dependency is nothing to wait for.
		}
	}
	return levels(o, "subcharts of chart "+name, nodes, deps)
}

// groups orders a chart's own items by resource group.
func (o *orderer) groups(name string, path []string, own []int) {
	if len(own) == 0 {
		return
	}
	groupOf := map[string]string{} // item key -> group
	members := map[string][]int{}
	deps := map[string][]string{}
	var rest []int
	for _, i := range own {
		it := o.items[i]
		g, grouped := it.Annotations[AnnotationResourceGroup]
		g = strings.TrimSpace(g)
		on, err := StringList(it.Annotations[AnnotationDependsOnGroups])
		if err != nil {
			o.problem("%s: annotation %s: %v", it.Name, AnnotationDependsOnGroups, err)
		}
		if !grouped || g == "" {
			if grouped {
				o.problem("%s: annotation %s is empty", it.Name, AnnotationResourceGroup)
			} else if len(on) > 0 {
				o.res.Warnings = append(o.res.Warnings, fmt.Sprintf("%s declares %s but no %s: it goes with the objects outside groups, last", it.Name, AnnotationDependsOnGroups, AnnotationResourceGroup))
			}
			rest = append(rest, i)
			continue
		}
		if other, seen := groupOf[it.Key]; seen && other != g {
			o.problem("%s is in two resource groups of chart %s: %q and %q", it.Name, name, other, g)
			continue
		}
		groupOf[it.Key] = g
		members[g] = append(members[g], i)
		deps[g] = append(deps[g], on...)
	}
	nodes := map[string]bool{}
	for g := range members {
		nodes[g] = true
	}
	for g, on := range deps {
		for _, d := range on {
			if !nodes[d] {
				o.problem("resource group %q of chart %s depends on resource group %q, which no object of the chart is in", g, name, d)
			}
		}
	}
	for _, level := range levels(o, "resource groups of chart "+name, nodes, deps) {
		b := Batch{Chart: path, Groups: level}
		for _, g := range level {
			b.Items = append(b.Items, members[g]...)
		}
		slices.Sort(b.Items)
		o.res.Batches = append(o.res.Batches, b)
	}
	if len(rest) > 0 {
		o.res.Batches = append(o.res.Batches, Batch{Chart: path, Items: rest})
	}
}

// levels sorts a graph topologically into levels (names sorted within a
// level): each node after every node it depends on. Edges to unknown nodes
// are left out (reported by the caller); a cycle is a problem naming it.
func levels(o *orderer, what string, nodes map[string]bool, deps map[string][]string) [][]string {
	remaining := map[string]map[string]bool{}
	for n := range nodes {
		remaining[n] = map[string]bool{}
		for _, d := range deps[n] {
			if nodes[d] {
				remaining[n][d] = true
			}
		}
	}
	var out [][]string
	for len(remaining) > 0 {
		var level []string
		for n, on := range remaining {
			if len(on) == 0 {
				level = append(level, n)
			}
		}
		if len(level) == 0 {
			o.problem("%s depend on each other in a cycle: %s", what, cycle(remaining))
			return out
		}
		slices.Sort(level)
		for _, n := range level {
			delete(remaining, n)
		}
		for _, on := range remaining {
			for _, n := range level {
				delete(on, n)
			}
		}
		out = append(out, level)
	}
	return out
}

// cycle names one cycle among nodes that all still wait on others.
func cycle(remaining map[string]map[string]bool) string {
	names := make([]string, 0, len(remaining))
	for n := range remaining {
		names = append(names, n)
	}
	slices.Sort(names)
	seen := map[string]int{}
	var walk []string
	cur := names[0]
	for {
		if at, ok := seen[cur]; ok {
			return strings.Join(append(walk[at:], cur), " -> ")
		}
		seen[cur] = len(walk)
		walk = append(walk, cur)
		var next []string
		for d := range remaining[cur] {
			next = append(next, d)
		}
		slices.Sort(next)
		cur = next[0]
	}
}
