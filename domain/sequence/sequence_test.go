package sequence

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// item is an object of chart path p (a/b/c) named n with annotations.
func item(p, n string, ann map[string]string) Item {
	return Item{Chart: strings.Split(p, "/"), Name: "ConfigMap " + n, Key: n, Annotations: ann}
}

func group(g string, on ...string) map[string]string {
	a := map[string]string{AnnotationResourceGroup: g}
	if len(on) > 0 {
		b, _ := json.Marshal(on)
		a[AnnotationDependsOnGroups] = string(b)
	}
	return a
}

// tree is chart foo with subcharts as the HIP's example: nginx, rabbitmq,
// bar (depends on nginx and rabbitmq), and foo's annotation naming bar and
// rabbitmq; with extra dependencies appended.
func tree(extra ...*chart.Dependency) *chart.Chart {
	deps := append([]*chart.Dependency{
		{Name: "nginx"}, {Name: "rabbitmq"}, {Name: "bar", DependsOn: []string{"nginx", "rabbitmq"}},
	}, extra...)
	root := &chart.Chart{Metadata: &chart.Metadata{Name: "foo", Dependencies: deps,
		Annotations: map[string]string{AnnotationDependsOnSubcharts: `["bar", "rabbitmq"]`}}}
	for _, d := range deps {
		name := d.Name
		if d.Alias != "" {
			name = d.Alias
		}
		if d.Enabled || d.Condition == "" {
			root.AddDependency(&chart.Chart{Metadata: &chart.Metadata{Name: name}})
		}
	}
	return root
}

func TestOrder(t *testing.T) {
	tests := map[string]struct {
		chart    *chart.Chart
		items    []Item
		batches  []string
		problems []string
		warnings []string
		ignored  []string
	}{
		"the HIP's resource groups": {
			items: []Item{
				item("foo", "db-service", group("database")),
				item("foo", "my-app", group("app", "database", "queue")),
				item("foo", "queue-processor", group("queue")),
				item("foo", "plain", nil),
			},
			batches: []string{"foo database, queue: db-service queue-processor", "foo app: my-app", "foo: plain"},
		},
		"the HIP's subcharts, each with its own groups": {
			chart: tree(),
			items: []Item{
				item("foo", "foo-cm", nil),
				item("foo/bar", "bar-late", group("late", "early")),
				item("foo/bar", "bar-early", group("early")),
				item("foo/nginx", "nginx", nil),
				item("foo/rabbitmq", "rabbit", nil),
				item("foo/bar/x", "deep", nil),
			},
			batches: []string{"foo/nginx: nginx", "foo/rabbitmq: rabbit", "foo/bar/x: deep", "foo/bar early: bar-early", "foo/bar late: bar-late", "foo: foo-cm"},
		},
		"a cycle of groups": {
			items: []Item{
				item("foo", "a", group("a", "c")), item("foo", "b", group("b", "a")), item("foo", "c", group("c", "b")),
				item("foo", "d", group("d")),
			},
			problems: []string{"resource groups of chart foo depend on each other in a cycle: a -> c -> b -> a"},
		},
		"a group that does not exist": {
			items:    []Item{item("foo", "app", group("app", "database"))},
			problems: []string{`resource group "app" of chart foo depends on resource group "database", which no object of the chart is in`},
		},
		"one object in two groups": {
			items:    []Item{item("foo", "x", group("a")), item("foo", "x", group("b"))},
			problems: []string{`ConfigMap x is in two resource groups of chart foo: "a" and "b"`},
		},
		"malformed depends-on": {
			items:    []Item{item("foo", "x", map[string]string{AnnotationResourceGroup: "a", AnnotationDependsOnGroups: "b, c"})},
			problems: []string{`ConfigMap x: annotation helm.sh/depends-on/resource-groups: want a JSON array of strings such as ["a", "b"], got b, c`},
		},
		"depends-on without a group": {
			items:    []Item{item("foo", "x", map[string]string{AnnotationDependsOnGroups: `["a"]`}), item("foo", "y", group("a"))},
			batches:  []string{"foo a: y", "foo: x"},
			warnings: []string{"ConfigMap x declares helm.sh/depends-on/resource-groups but no helm.sh/resource-group: it goes with the objects outside groups, last"},
		},
		"a cycle of subcharts": {
			chart: tree(&chart.Dependency{Name: "a", DependsOn: []string{"b"}}, &chart.Dependency{Name: "b", DependsOn: []string{"a"}}),
			items: []Item{item("foo/a", "a", nil), item("foo/b", "b", nil)},
			problems: []string{
				"subcharts of chart foo depend on each other in a cycle: a -> b -> a",
			},
		},
		"depends-on a subchart that is not a dependency": {
			chart:    tree(&chart.Dependency{Name: "web", Alias: "front", DependsOn: []string{"nope"}}),
			items:    []Item{item("foo/front", "w", nil)},
			problems: []string{`chart foo: dependency "front" depends on "nope", which is not one of its dependencies`},
		},
		"a depends-on/subcharts annotation that is not a list is ignored, as Helm ignores it": {
			chart: func() *chart.Chart {
				c := tree()
				c.Metadata.Annotations[AnnotationDependsOnSubcharts] = "bar"
				return c
			}(),
			items:   []Item{item("foo/bar", "b", nil), item("foo/nginx", "n", nil), item("foo", "f", nil)},
			batches: []string{"foo/nginx: n", "foo/bar: b", "foo: f"},
			ignored: []string{`chart foo: annotation helm.sh/depends-on/subcharts is ignored: want a JSON array of strings such as ["a", "b"], got bar`},
		},
		"a disabled dependency is nothing to wait for": {
			chart:   tree(&chart.Dependency{Name: "cache", Condition: "cache.enabled"}, &chart.Dependency{Name: "web", DependsOn: []string{"cache"}}),
			items:   []Item{item("foo/web", "w", nil), item("foo", "f", nil)},
			batches: []string{"foo/web: w", "foo: f"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ch := tc.chart
			if ch == nil {
				ch = &chart.Chart{Metadata: &chart.Metadata{Name: "foo"}}
			}
			res, err := Order(ch, tc.items)
			if tc.problems != nil {
				oe, ok := err.(*OrderError)
				if !ok || strings.Join(oe.Problems, "\n") != strings.Join(tc.problems, "\n") {
					t.Fatalf("error = %v, want problems\n%s", err, strings.Join(tc.problems, "\n"))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range res.Batches {
				var names []string
				for _, i := range b.Items {
					names = append(names, tc.items[i].Key)
				}
				got = append(got, b.Label()+": "+strings.Join(names, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.batches, "\n") {
				t.Errorf("batches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.batches, "\n"))
			}
			if strings.Join(res.Warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings: %q", res.Warnings)
			}
			if strings.Join(res.Ignored, "\n") != strings.Join(tc.ignored, "\n") {
				t.Errorf("ignored: %q", res.Ignored)
			}
		})
	}
}

func TestDeclaredAndChartPath(t *testing.T) {
	plain := &chart.Chart{Metadata: &chart.Metadata{Name: "foo"}}
	if Declared(plain, []Item{item("foo", "a", map[string]string{"x": "y"})}) {
		t.Error("a chart without annotations declares sequencing")
	}
	if !Declared(plain, []Item{item("foo", "a", group("g"))}) || !Declared(tree(), nil) {
		t.Error("annotations or depends-on do not declare sequencing")
	}
	for src, want := range map[string]string{
		"web/templates/a.yaml": "web", "web/charts/db/templates/x/y.yaml": "web/db",
		"web/charts/db/charts/cache/templates/c.yaml": "web/db/cache",
	} {
		if got := strings.Join(ChartPath(src), "/"); got != want {
			t.Errorf("ChartPath(%s) = %s, want %s", src, got, want)
		}
	}
}

func TestReadiness(t *testing.T) {
	obj := func(status string) map[string]any {
		var s map[string]any
		if err := json.Unmarshal([]byte(status), &s); err != nil {
			t.Fatal(err)
		}
		return map[string]any{"kind": "Job", "status": s}
	}
	tests := map[string]struct {
		success, failure string
		status           string
		want             Status
	}{
		"the HIP's Job, succeeded": {
			success: `["{.succeeded} == 1", "{.succeeded} == 2"]`, failure: `["{.failed} >= 1"]`,
			status: `{"succeeded": 1}`, want: Status{Ready: true, Message: "helm.sh/readiness-success holds: {.succeeded} == 1"},
		},
		"failure wins": {
			success: `["{.succeeded} == 1"]`, failure: `["{.failed} >= 1"]`,
			status: `{"succeeded": 1, "failed": 2}`, want: Status{Failed: true, Message: "helm.sh/readiness-failure holds: {.failed} >= 1 (got 2)"},
		},
		"pending names what is not met": {
			success: `["{.phase} == \"Ready\"", "{.replicas} > 2"]`, failure: `["{.phase} == \"Failed\""]`,
			status: `{"phase": "Pending"}`, want: Status{Message: `helm.sh/readiness-success not met: {.phase} == "Ready" (got "Pending"); {.replicas} > 2 (got not set)`},
		},
		"a condition by filter": {
			success: `["{.conditions[?(@.type==\"Ready\")].status} == \"True\""]`, failure: `["{.conditions[?(@.type == 'Failed')].status} == True"]`,
			status: `{"conditions": [{"type": "Progressing", "status": "True"}, {"type": "Ready", "status": "True"}]}`,
			want:   Status{Ready: true, Message: `helm.sh/readiness-success holds: {.conditions[?(@.type=="Ready")].status} == "True"`},
		},
		"paths from the object, indexes and booleans": {
			success: `["{.status.items[1].ok} == true"]`, failure: `["{['failed']} != false"]`,
			status: `{"items": [{"ok": false}, {"ok": true}], "failed": false}`,
			want:   Status{Ready: true, Message: "helm.sh/readiness-success holds: {.status.items[1].ok} == true"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, warn, err := ReadinessOf(map[string]string{AnnotationReadinessSuccess: tc.success, AnnotationReadinessFailure: tc.failure})
			if err != nil || warn != "" || c == nil {
				t.Fatalf("ReadinessOf: %v %q", err, warn)
			}
			if got := c.Evaluate(obj(tc.status)); got != tc.want {
				t.Errorf("Evaluate = %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if c, warn, _ := ReadinessOf(map[string]string{AnnotationReadinessSuccess: `["{.ok} == true"]`}); c != nil || !strings.Contains(warn, "both are needed") {
		t.Errorf("one annotation alone: %v %q", c, warn)
	}
	for _, bad := range []string{`["{.ok} ~ 1"]`, `["{ok} == 1"]`, `["{.a} > \"x\""]`, `["{.a[?(@.b==1]} == 1"]`, `[".ok == 1"]`, `{.ok} == 1`} {
		if _, _, err := ReadinessOf(map[string]string{AnnotationReadinessSuccess: bad, AnnotationReadinessFailure: "[]"}); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	if d, err := TimeoutOf(map[string]string{AnnotationReadinessTimeout: "90s"}); err != nil || d != 90*time.Second {
		t.Errorf("TimeoutOf = %v, %v", d, err)
	}
	if _, err := TimeoutOf(map[string]string{AnnotationReadinessTimeout: "soon"}); err == nil {
		t.Error("a bad timeout parsed")
	}
}
