package values_test

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

func loadChart(t *testing.T, dir string) *chart.Chart {
	t.Helper()
	c, err := loader.LoadDir(os.DirFS(dir), loader.DefaultLimits())
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return c
}

// chartNames lists every chart of a tree by dotted path, sorted.
func chartNames(c *chart.Chart) []string {
	out := []string{c.ChartPath()}
	for _, d := range c.Dependencies() {
		out = append(out, chartNames(d)...)
	}
	sort.Strings(out)
	return out
}

func TestProcessDependenciesEnabled(t *testing.T) {
	tests := map[string]struct {
		vals M
		want []string
	}{
		"tags with no effect": {
			vals: M{"tags": M{"nothinguseful": false}},
			want: []string{"parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb"},
		},
		"tags disabling a group": {
			vals: M{"tags": M{"front-end": false}},
			want: []string{"parentchart"},
		},
		"tags disabling a group and enabling a different group": {
			vals: M{"tags": M{"front-end": false, "back-end": true}},
			want: []string{"parentchart", "parentchart.subchart2", "parentchart.subchart2.subchartb", "parentchart.subchart2.subchartc"},
		},
		"tags disabling only children, children still enabled since tag front-end=true in values.yaml": {
			vals: M{"tags": M{"subcharta": false, "subchartb": false}},
			want: []string{"parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb"},
		},
		"tags disabling all parents/children with additional tag re-enabling a parent": {
			vals: M{"tags": M{"front-end": false, "subchart1": true, "back-end": false}},
			want: []string{"parentchart", "parentchart.subchart1"},
		},
		"conditions enabling the parent charts, but back-end (b, c) is still disabled via values.yaml": {
			vals: M{"subchart1": M{"enabled": true}, "subchart2": M{"enabled": true}},
			want: []string{"parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb", "parentchart.subchart2"},
		},
		"conditions disabling the parent charts, effectively disabling children": {
			vals: M{"subchart1": M{"enabled": false}, "subchart2": M{"enabled": false}},
			want: []string{"parentchart"},
		},
		"condition of a child, relative to the child's parent": {
			vals: M{"subchart1": M{"subcharta": M{"enabled": false}}},
			want: []string{"parentchart", "parentchart.subchart1", "parentchart.subchart1.subchartb"},
		},
		"tags enabling a parent/child group with condition disabling one child": {
			vals: M{"subchart2": M{"subchartc": M{"enabled": false}}, "tags": M{"back-end": true}},
			want: []string{"parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb", "parentchart.subchart2", "parentchart.subchart2.subchartb"},
		},
		"tags will not enable a child if parent is explicitly disabled with condition": {
			vals: M{"subchart1": M{"enabled": false}, "tags": M{"front-end": true}},
			want: []string{"parentchart"},
		},
		"subcharts with alias also respect conditions": {
			vals: M{"subchart1": M{"enabled": false}, "subchart2alias": M{"enabled": true, "subchartb": M{"enabled": true}}},
			want: []string{"parentchart", "parentchart.subchart2alias", "parentchart.subchart2alias.subchartb"},
		},
		"alias and original both enabled: two copies of one chart": {
			vals: M{"subchart1": M{"enabled": false}, "subchart2": M{"enabled": true}, "subchart2alias": M{"enabled": true}, "tags": M{"back-end": true}},
			want: []string{
				"parentchart",
				"parentchart.subchart2", "parentchart.subchart2.subchartb", "parentchart.subchart2.subchartc",
				"parentchart.subchart2alias", "parentchart.subchart2alias.subchartb", "parentchart.subchart2alias.subchartc",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := loadChart(t, "testdata/subpop")
			if err := values.ProcessDependencies(c, tc.vals, nil); err != nil {
				t.Fatal(err)
			}
			if got := chartNames(c); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("charts = %v\nwant     %v", got, tc.want)
			}
			// The dependency entries left match the subcharts left.
			var reqs []string
			for _, r := range c.Metadata.Dependencies {
				reqs = append(reqs, r.Name)
				if !r.Enabled {
					t.Errorf("dependency %s kept but not enabled", r.Name)
				}
			}
			sort.Strings(reqs)
			var deps []string
			for _, d := range c.Dependencies() {
				deps = append(deps, d.Name())
			}
			sort.Strings(deps)
			if !reflect.DeepEqual(reqs, deps) {
				t.Errorf("dependency entries %v, subcharts %v", reqs, deps)
			}
		})
	}
}

func TestProcessDependenciesImportValues(t *testing.T) {
	c := loadChart(t, "testdata/subpop")
	if err := values.ProcessDependencies(c, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"imported-chart1.SC1bool":   "true",
		"imported-chart1.SC1float":  "3.14",
		"imported-chart1.SC1int":    "100",
		"imported-chart1.SC1string": "dollywood",
		"imported-chart1.SC1extra1": "11",
		"imported-chart1.SPextra1":  "helm rocks",

		"imported-chartA.SCAbool":               "false",
		"imported-chartA.SCAfloat":              "3.1",
		"imported-chartA.SCAint":                "55",
		"imported-chartA.SCAstring":             "jabba",
		"imported-chartA.SPextra3":              "1.337",
		"imported-chartA.SC1extra2":             "1.337",
		"imported-chartA.SCAnested1.SCAnested2": "true",

		"imported-chartA-B.SCAbool":   "false",
		"imported-chartA-B.SCAfloat":  "3.1",
		"imported-chartA-B.SCAint":    "55",
		"imported-chartA-B.SCAstring": "jabba",
		"imported-chartA-B.SCBbool":   "true",
		"imported-chartA-B.SCBfloat":  "7.77",
		"imported-chartA-B.SCBint":    "33",
		"imported-chartA-B.SCBstring": "boba",
		"imported-chartA-B.SPextra5":  "k8s",
		"imported-chartA-B.SC1extra5": "tiller",

		// The parent's own values win over what it imports.
		"overridden-chart1.SC1bool":   "false",
		"overridden-chart1.SC1float":  "3.141592",
		"overridden-chart1.SC1int":    "99",
		"overridden-chart1.SC1string": "pollywog",
		"overridden-chart1.SPextra2":  "42",

		"overridden-chartA.SCAbool":   "true",
		"overridden-chartA.SCAfloat":  "41.3",
		"overridden-chartA.SCAint":    "808",
		"overridden-chartA.SCAstring": "jabberwocky",
		"overridden-chartA.SPextra4":  "true",

		"overridden-chartA-B.SCAbool":   "true",
		"overridden-chartA-B.SCAfloat":  "41.3",
		"overridden-chartA-B.SCAint":    "808",
		"overridden-chartA-B.SCAstring": "jabberwocky",
		"overridden-chartA-B.SCBbool":   "false",
		"overridden-chartA-B.SCBfloat":  "1.99",
		"overridden-chartA-B.SCBint":    "77",
		"overridden-chartA-B.SCBstring": "jango",
		"overridden-chartA-B.SPextra6":  "111",
		"overridden-chartA-B.SCAextra1": "23",
		"overridden-chartA-B.SCBextra1": "13",
		"overridden-chartA-B.SC1extra6": "77",

		// "exports" form and parent ".".
		"SCBexported1B":                        "1965",
		"SC1extra7":                            "true",
		"SCBexported2A":                        "blaster",
		"global.SC1exported2.all.SC1exported3": "SC1expstr",
	}
	vals := values.Values(c.Values)
	for path, w := range want {
		got, err := vals.PathValue(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var s string
		switch g := got.(type) {
		case float64:
			s = strconv.FormatFloat(g, 'f', -1, 64)
		case bool:
			s = strconv.FormatBool(g)
		default:
			s = fmt.Sprint(g)
		}
		if s != w {
			t.Errorf("%s = %s, want %s", path, s, w)
		}
	}
	// Nulls survive (install's merge semantics).
	if v, err := vals.PathValue("ensurenull"); err != nil || v != nil {
		t.Errorf("ensurenull = %v, %v; want a kept null", v, err)
	}
	// Import entries are normalised to child/parent pairs.
	wantImports := []any{
		map[string]string{"child": "SC1data", "parent": "imported-chart1"},
		map[string]string{"child": "SC1data", "parent": "overridden-chart1"},
		map[string]string{"child": "imported-chartA", "parent": "imported-chartA"},
		map[string]string{"child": "imported-chartA-B", "parent": "imported-chartA-B"},
		map[string]string{"child": "overridden-chartA-B", "parent": "overridden-chartA-B"},
		map[string]string{"child": "SCBexported1A", "parent": "."},
		map[string]string{"child": "exports.SCBexported2", "parent": "."},
		map[string]string{"child": "exports.SC1exported1", "parent": "."},
	}
	if got := c.Metadata.Dependencies[0].ImportValues; !reflect.DeepEqual(got, wantImports) {
		t.Errorf("subchart1 import-values = %#v\nwant %#v", got, wantImports)
	}
}

func TestProcessDependenciesImportPrecedence(t *testing.T) {
	// User values > parent values > imported values > subchart values.
	c := loadChart(t, "testdata/three-level/umbrella")
	if err := values.ProcessDependencies(c, nil, nil); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path string
		want float64
	}{
		"set by the umbrella":                 {"app1.service.port", 3456},
		"app value over the import":           {"app2.service.port", 8080},
		"imported from the library":           {"app3.service.port", 9090},
		"app value, nothing imported":         {"app4.service.port", 1234},
		"imported into the app itself":        {"app3.service.port", 9090},
		"library export reached the umbrella": {"app1.library.exports.defaults.service.port", 9090},
	}
	vals := values.Values(c.Values)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := vals.PathValue(tc.path)
			if err != nil || got != tc.want {
				t.Errorf("%s = %v (%v), want %v", tc.path, got, err, tc.want)
			}
		})
	}
}

func TestProcessDependenciesImportFromEnabledSubchartOnly(t *testing.T) {
	c := loadChart(t, "testdata/enabled-import")
	if got := len(c.Dependencies()); got != 2 {
		t.Fatalf("loaded %d subcharts, want 2", got)
	}
	if err := values.ProcessDependencies(c, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := chartNames(c); !reflect.DeepEqual(got, []string{"parent-chart", "parent-chart.prod"}) {
		t.Fatalf("charts = %v", got)
	}
	if got := len(c.Metadata.Dependencies); got != 1 {
		t.Fatalf("%d dependency entries left, want 1", got)
	}
	if got := c.Dependencies()[0].Values["nameOverride"]; got != "parent-chart-prod" {
		t.Errorf("prod nameOverride = %v", got)
	}
	// The parent's own values win over prod's export; dev's are never imported.
	want := M{"minReplicas": float64(0), "maxReplicas": float64(0), "targetCPUUtilizationPercentage": float64(99)}
	if got, err := values.Values(c.Values).Table("resources.autoscaler"); err != nil || !reflect.DeepEqual(map[string]any(got), want) {
		t.Errorf("resources.autoscaler = %v (%v), want %v", got, err, want)
	}
	if got := c.Values["nameOverride"]; got != "parent-chart" {
		t.Errorf("nameOverride = %v", got)
	}
}

func TestProcessDependenciesAlias(t *testing.T) {
	c := loadChart(t, "testdata/alias")
	if got := len(c.Dependencies()); got != 2 {
		t.Fatalf("loaded %d subcharts, want 2", got)
	}
	if err := values.ProcessDependencies(c, M{"mariners2": M{"boat": "second"}}, nil); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range c.Dependencies() {
		names = append(names, d.Name())
	}
	if want := []string{"alpine", "mariners2", "mariners1"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("subcharts = %v, want %v", names, want)
	}
	if len(c.Metadata.Dependencies) != 3 {
		t.Errorf("%d dependency entries, want 3", len(c.Metadata.Dependencies))
	}
	m1, m2 := c.Dependencies()[2], c.Dependencies()[1]
	if m1.Metadata == m2.Metadata {
		t.Error("the two copies share their metadata")
	}
	if m1.Metadata.Version != "4.3.2" || m1.Parent() != c || m1.ChartPath() != "frobnitz.mariners1" {
		t.Errorf("mariners1: version %s path %s", m1.Metadata.Version, m1.ChartPath())
	}
	got, err := values.CoalesceFor(dialect.Helm3, c, M{"mariners2": M{"boat": "second"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"mariners1.boat": "first",
		"mariners2.boat": "second",
		"mariners1.sea":  "salt",
		"mariners2.sea":  "salt",
	} {
		if v, err := got.PathValue(path); err != nil || v != want {
			t.Errorf("%s = %v (%v), want %s", path, v, err, want)
		}
	}
}

// mk builds a chart with dependency entries.
func mk(name, version string, vals M, reqs ...*chart.Dependency) *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: name, Version: version, APIVersion: "v2", Dependencies: reqs},
		Values:   vals,
	}
}

func TestProcessDependenciesConditionsAndTags(t *testing.T) {
	build := func(req *chart.Dependency, parentVals M) *chart.Chart {
		parent := mk("parent", "1.0.0", parentVals, req)
		parent.AddDependency(mk("sub", "1.0.0", M{"enabled": true, "flag": "yes"}))
		return parent
	}
	tests := map[string]struct {
		req      *chart.Dependency
		vals     M
		user     M
		enabled  bool
		warnings []string
	}{
		"no condition, no tags": {
			req: &chart.Dependency{Name: "sub", Version: "1.0.0"}, enabled: true,
		},
		"condition false": {
			req: &chart.Dependency{Name: "sub", Condition: "sub.enabled"}, user: M{"sub": M{"enabled": false}},
		},
		"condition from the subchart's own defaults": {
			req: &chart.Dependency{Name: "sub", Condition: "sub.enabled"}, enabled: true,
		},
		"comma list: first path holding a bool wins": {
			req:  &chart.Dependency{Name: "sub", Condition: "missing.path,global.sub.enabled,sub.enabled"},
			user: M{"global": M{"sub": M{"enabled": false}}}, enabled: false,
		},
		"comma list: later path when the first is missing": {
			req:  &chart.Dependency{Name: "sub", Condition: "nope.enabled,other.enabled"},
			vals: M{"other": M{"enabled": false}},
		},
		"comma list with spaces around": {
			req:  &chart.Dependency{Name: "sub", Condition: "  other.enabled  "},
			vals: M{"other": M{"enabled": false}},
		},
		"non-bool condition is skipped with a warning": {
			req:      &chart.Dependency{Name: "sub", Condition: "sub.flag,other.enabled"},
			vals:     M{"other": M{"enabled": false}},
			warnings: []string{"Warning: Condition path 'sub.flag' for chart sub returned non-bool value"},
		},
		"non-bool condition alone leaves it enabled": {
			req: &chart.Dependency{Name: "sub", Condition: "sub.flag"}, enabled: true,
			warnings: []string{"Warning: Condition path 'sub.flag' for chart sub returned non-bool value"},
		},
		"condition naming a table": {
			req: &chart.Dependency{Name: "sub", Condition: "other"}, vals: M{"other": M{"x": false}}, enabled: true,
		},
		"tag false": {
			req: &chart.Dependency{Name: "sub", Tags: []string{"a"}}, user: M{"tags": M{"a": false}},
		},
		"any true tag enables": {
			req: &chart.Dependency{Name: "sub", Tags: []string{"a", "b"}}, user: M{"tags": M{"a": false, "b": true}}, enabled: true,
		},
		"unset tags leave it enabled": {
			req: &chart.Dependency{Name: "sub", Tags: []string{"a"}}, user: M{"tags": M{"other": false}}, enabled: true,
		},
		"non-bool tag is skipped with a warning": {
			req: &chart.Dependency{Name: "sub", Tags: []string{"a", "b"}}, user: M{"tags": M{"a": "no", "b": false}},
			warnings: []string{"Warning: Tag 'a' for chart sub returned non-bool value"},
		},
		"condition wins over tags (enable)": {
			req:  &chart.Dependency{Name: "sub", Condition: "sub.on", Tags: []string{"a"}},
			user: M{"tags": M{"a": false}, "sub": M{"on": true}}, enabled: true,
		},
		"condition wins over tags (disable)": {
			req:  &chart.Dependency{Name: "sub", Condition: "sub.on", Tags: []string{"a"}},
			user: M{"tags": M{"a": true}, "sub": M{"on": false}},
		},
		"version constraint not met: the entry does not claim the subchart": {
			req:  &chart.Dependency{Name: "sub", Version: "^2.0.0", Condition: "sub.on"},
			user: M{"sub": M{"on": true}}, enabled: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := build(tc.req, tc.vals)
			var warnings []string
			if err := values.ProcessDependencies(c, tc.user, collect(&warnings)); err != nil {
				t.Fatal(err)
			}
			got := len(c.Dependencies()) == 1
			if got != tc.enabled {
				t.Errorf("subchart kept = %v, want %v", got, tc.enabled)
			}
			if !sameList(warnings, tc.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tc.warnings)
			}
		})
	}
}

func TestProcessDependenciesDropsRecursively(t *testing.T) {
	tests := map[string]struct {
		user M
		want []string
	}{
		"all enabled":           {want: []string{"root", "root.mid", "root.mid.leaf", "root.unlisted"}},
		"leaf disabled":         {user: M{"mid": M{"leaf": M{"enabled": false}}}, want: []string{"root", "root.mid", "root.unlisted"}},
		"mid drops its leaf":    {user: M{"mid": M{"enabled": false}}, want: []string{"root", "root.unlisted"}},
		"global does not reach": {user: M{"global": M{"enabled": false}}, want: []string{"root", "root.mid", "root.mid.leaf", "root.unlisted"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := mk("root", "1.0.0", nil, &chart.Dependency{Name: "mid", Condition: "mid.enabled", ImportValues: []any{M{"child": "imported", "parent": "from.mid"}}})
			m := mk("mid", "1.0.0", M{"imported": M{"x": 1}}, &chart.Dependency{Name: "leaf", Condition: "leaf.enabled"})
			m.AddDependency(mk("leaf", "1.0.0", M{"leaf": true}))
			r.AddDependency(m, mk("unlisted", "1.0.0", nil))
			if err := values.ProcessDependencies(r, tc.user, nil); err != nil {
				t.Fatal(err)
			}
			if got := chartNames(r); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("charts = %v, want %v", got, tc.want)
			}
			_, err := values.Values(r.Values).PathValue("from.mid.x")
			if imported := err == nil; imported != (len(tc.want) > 2) {
				t.Errorf("from.mid.x imported = %v with charts %v", imported, tc.want)
			}
		})
	}
}

func TestProcessDependenciesImportWarnings(t *testing.T) {
	c := mk("parent", "1.0.0", nil, &chart.Dependency{
		Name:         "sub",
		ImportValues: []any{M{"child": "nope", "parent": "x"}, "missing", M{"child": "deep.path", "parent": "a.b.c"}},
	})
	c.AddDependency(mk("sub", "1.0.0", M{"deep": M{"path": M{"v": 1}}}))
	var warnings []string
	if err := values.ProcessDependencies(c, nil, collect(&warnings)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`Warning: ImportValues missing table from chart sub: "nope" is not a table`,
		`Warning: ImportValues missing table: "exports" is not a table`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
	if v, err := values.Values(c.Values).PathValue("a.b.c.v"); err != nil || v != 1 {
		t.Errorf("a.b.c.v = %v (%v), want 1", v, err)
	}
}

func TestIsCompatibleRange(t *testing.T) {
	tests := map[string]struct {
		constraint, version string
		want                bool
	}{
		"exact":                {"1.2.3", "1.2.3", true},
		"caret":                {"^1.2.0", "1.9.0", true},
		"caret excludes major": {"^1.2.0", "2.0.0", false},
		"range":                {">=1.20.0-0", "v1.31.0", true},
		"prerelease needs -0":  {">=1.20.0", "v1.31.0-gke.1", false},
		"empty constraint":     {"", "1.0.0", false},
		"bad version":          {"^1.0.0", "one", false},
		"bad constraint":       {"not a range", "1.0.0", false},
		"wildcard":             {"1.x", "1.4.0", true},
		"or":                   {"<1.0.0 || >=2.0.0", "2.1.0", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := values.IsCompatibleRange(tc.constraint, tc.version); got != tc.want {
				t.Errorf("IsCompatibleRange(%q, %q) = %v, want %v", tc.constraint, tc.version, got, tc.want)
			}
		})
	}
}
