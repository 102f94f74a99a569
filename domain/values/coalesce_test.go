package values_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"text/template"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/domain/yamldoc"
)

// ref: http://www.yaml.org/spec/1.2/spec.html#id2803362 (the spellings of null)
const userValuesYAML = `
top: yup
bottom: null
right: Null
left: NULL
front: ~
back: ""
nested:
  boat: null

global:
  name: Ishmael
  subject: Queequeg
  nested:
    boat: true

pequod:
  boat: null
  global:
    name: Stinky
    harpooner: Tashtego
    nested:
      boat: false
      sail: true
      foo2: null
  ahab:
    scope: whale
    boat: null
    nested:
      foo: true
      boat: null
    object: null
`

type M = map[string]any

func withDeps(c *chart.Chart, deps ...*chart.Chart) *chart.Chart {
	c.AddDependency(deps...)
	return c
}

// moby is the chart tree of Helm's coalescing tests: moby -> pequod -> ahab, and
// moby -> spouter.
func moby() *chart.Chart {
	return withDeps(&chart.Chart{
		Metadata: &chart.Metadata{Name: "moby"},
		Values: M{
			"back":     "exists",
			"bottom":   "exists",
			"front":    "exists",
			"left":     "exists",
			"name":     "moby",
			"nested":   M{"boat": true},
			"override": "bad",
			"right":    "exists",
			"scope":    "moby",
			"top":      "nope",
			"global":   M{"nested2": M{"l0": "moby"}},
			"pequod": M{
				"boat": "maybe",
				"ahab": M{"boat": "maybe", "nested": M{"boat": "maybe"}},
			},
		},
	},
		withDeps(&chart.Chart{
			Metadata: &chart.Metadata{Name: "pequod"},
			Values: M{
				"name":   "pequod",
				"scope":  "pequod",
				"global": M{"nested2": M{"l1": "pequod"}},
				"boat":   false,
				"ahab":   M{"boat": false, "nested": M{"boat": false}},
			},
		},
			&chart.Chart{
				Metadata: &chart.Metadata{Name: "ahab"},
				Values: M{
					"global": M{
						"nested":  M{"foo": "bar", "foo2": "bar2"},
						"nested2": M{"l2": "ahab"},
					},
					"scope":  "ahab",
					"name":   "ahab",
					"boat":   true,
					"nested": M{"foo": false, "boat": true, "bar": true},
					"object": M{"foo": "bar"},
				},
			},
		),
		&chart.Chart{
			Metadata: &chart.Metadata{Name: "spouter"},
			Values: M{
				"scope":  "spouter",
				"global": M{"nested2": M{"l1": "spouter"}},
			},
		},
	)
}

// render expands a template against values the way Helm's tests do, so a missing
// key reads "<no value>".
func render(t *testing.T, tpl string, v map[string]any) string {
	t.Helper()
	var b strings.Builder
	if err := template.Must(template.New("t").Parse(tpl)).Execute(&b, v); err != nil {
		t.Fatalf("%s: %v", tpl, err)
	}
	return b.String()
}

func collect(warnings *[]string) values.Warn {
	return func(format string, args ...any) { *warnings = append(*warnings, fmt.Sprintf(format, args...)) }
}

func TestCoalesceAndMerge(t *testing.T) {
	// Expansions that are the same whether nulls are kept or not.
	shared := map[string]string{
		"{{.top}}":                            "yup",
		"{{.back}}":                           "",
		"{{.name}}":                           "moby",
		"{{.override}}":                       "bad",
		"{{.global.name}}":                    "Ishmael",
		"{{.global.subject}}":                 "Queequeg",
		"{{.global.harpooner}}":               "<no value>",
		"{{.pequod.name}}":                    "pequod",
		"{{.pequod.ahab.name}}":               "ahab",
		"{{.pequod.ahab.scope}}":              "whale",
		"{{.pequod.ahab.nested.foo}}":         "true",
		"{{.pequod.ahab.global.name}}":        "Ishmael",
		"{{.pequod.ahab.global.nested.foo}}":  "bar",
		"{{.pequod.ahab.global.subject}}":     "Queequeg",
		"{{.pequod.ahab.global.harpooner}}":   "Tashtego",
		"{{.pequod.global.name}}":             "Ishmael",
		"{{.pequod.global.nested.foo}}":       "<no value>",
		"{{.pequod.global.subject}}":          "Queequeg",
		"{{.spouter.global.name}}":            "Ishmael",
		"{{.spouter.global.harpooner}}":       "<no value>",
		"{{.spouter.scope}}":                  "spouter",
		"{{.global.nested.boat}}":             "true",
		"{{.pequod.global.nested.boat}}":      "true",
		"{{.spouter.global.nested.boat}}":     "true",
		"{{.pequod.global.nested.sail}}":      "true",
		"{{.spouter.global.nested.sail}}":     "<no value>",
		"{{.global.nested2.l0}}":              "moby",
		"{{.global.nested2.l1}}":              "<no value>",
		"{{.global.nested2.l2}}":              "<no value>",
		"{{.pequod.global.nested2.l0}}":       "moby",
		"{{.pequod.global.nested2.l1}}":       "pequod",
		"{{.pequod.global.nested2.l2}}":       "<no value>",
		"{{.pequod.ahab.global.nested2.l0}}":  "moby",
		"{{.pequod.ahab.global.nested2.l1}}":  "pequod",
		"{{.pequod.ahab.global.nested2.l2}}":  "ahab",
		"{{.spouter.global.nested2.l0}}":      "moby",
		"{{.spouter.global.nested2.l1}}":      "spouter",
		"{{.spouter.global.nested2.l2}}":      "<no value>",
		"{{.pequod.ahab.nested.bar}}":         "true",
		"{{.pequod.ahab.global.nested.foo2}}": "<no value>",
		"{{.pequod.global.nested.foo2}}":      "<no value>",
	}

	tests := map[string]struct {
		run func(*chart.Chart, map[string]any, values.Warn) (values.Values, error)
		// keepsNulls: user nulls stay (as nil) instead of deleting the defaults.
		keepsNulls bool
	}{
		"Coalesce": {run: func(ch *chart.Chart, v map[string]any, w values.Warn) (values.Values, error) {
			return values.CoalesceFor(dialect.Helm3, ch, v, w)
		}},
		"Merge": {run: values.Merge, keepsNulls: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			user, err := yamldoc.UnmarshalMap([]byte(userValuesYAML))
			if err != nil {
				t.Fatal(err)
			}
			before := values.DeepCopy(map[string]any(user))
			var warnings []string
			v, err := tc.run(moby(), user, collect(&warnings))
			if err != nil {
				t.Fatal(err)
			}
			for tpl, want := range shared {
				if got := render(t, tpl, v); got != want {
					t.Errorf("%s = %q, want %q", tpl, got, want)
				}
			}
			present := func(m any, key string) (any, bool) {
				val, ok := m.(map[string]any)[key]
				return val, ok
			}
			pequod := v["pequod"].(map[string]any)
			ahab := pequod["ahab"].(map[string]any)
			nulls := map[string]struct {
				table any
				key   string
			}{
				"bottom":             {v.AsMap(), "bottom"},
				"right":              {v.AsMap(), "right"},
				"left":               {v.AsMap(), "left"},
				"front":              {v.AsMap(), "front"},
				"nested.boat":        {v["nested"], "boat"},
				"pequod.boat":        {pequod, "boat"},
				"pequod.ahab.boat":   {ahab, "boat"},
				"ahab.nested.boat":   {ahab["nested"], "boat"},
				"pequod.ahab.object": {ahab, "object"},
			}
			for label, n := range nulls {
				val, ok := present(n.table, n.key)
				switch {
				case tc.keepsNulls && (!ok || val != nil):
					t.Errorf("%s: got (%v, present %v), want a kept null", label, val, ok)
				case !tc.keepsNulls && ok:
					t.Errorf("%s: still present (%v), want it deleted", label, val)
				}
			}
			if !reflect.DeepEqual(map[string]any(user), before) {
				t.Errorf("the user's values were changed:\n%#v\nwas\n%#v", user, before)
			}
		})
	}
}

func TestCoalesceTables(t *testing.T) {
	newDst := func() map[string]any {
		return M{
			"name":    "Ishmael",
			"address": M{"street": "123 Spouter Inn Ct.", "city": "Nantucket", "country": nil},
			"details": M{"friends": []string{"Tashtego"}},
			"boat":    "pequod",
			"hole":    nil,
		}
	}
	newSrc := func() map[string]any {
		return M{
			"occupation": "whaler",
			"address":    M{"state": "MA", "street": "234 Spouter Inn Ct.", "country": "US"},
			"details":    "empty",
			"boat":       M{"mast": true},
			"hole":       "black",
		}
	}
	full := func() map[string]any {
		return M{
			"name":    "Ishmael",
			"address": M{"street": "123 Spouter Inn Ct.", "city": "Nantucket", "country": "US"},
			"details": M{"friends": []string{"Tashtego"}},
			"boat":    "pequod",
			"hole":    "black",
			"nilval":  nil,
		}
	}
	tests := map[string]struct {
		fn       func(dst, src map[string]any, warn values.Warn) map[string]any
		dst, src map[string]any
		want     map[string]any
		warnings []string
	}{
		"coalesce: dst wins, null deletes": {
			fn: values.CoalesceTables, dst: newDst(), src: newSrc(),
			want: M{
				"name":       "Ishmael",
				"occupation": "whaler",
				"address":    M{"street": "123 Spouter Inn Ct.", "city": "Nantucket", "state": "MA"},
				"details":    M{"friends": []string{"Tashtego"}},
				"boat":       "pequod",
			},
			warnings: []string{
				"warning: cannot overwrite table with non table for boat (map[mast:true])",
				"warning: destination for details is a table. Ignoring non-table value (empty)",
			},
		},
		"merge: dst wins, null kept": {
			fn: values.MergeTables, dst: newDst(), src: newSrc(),
			want: M{
				"name":       "Ishmael",
				"occupation": "whaler",
				"address":    M{"street": "123 Spouter Inn Ct.", "city": "Nantucket", "state": "MA", "country": nil},
				"details":    M{"friends": []string{"Tashtego"}},
				"boat":       "pequod",
				"hole":       nil,
			},
			warnings: []string{
				"warning: cannot overwrite table with non table for boat (map[mast:true])",
				"warning: destination for details is a table. Ignoring non-table value (empty)",
			},
		},
		"coalesce with no source keeps everything": {
			fn: values.CoalesceTables, dst: full(), src: nil, want: full(),
		},
		"merge with no source keeps everything": {
			fn: values.MergeTables, dst: full(), src: nil, want: full(),
		},
		"coalesce into nothing is the source": {
			fn: values.CoalesceTables, dst: nil, src: M{"a": 1}, want: M{"a": 1},
		},
		"null in dst that src does not have stays": {
			fn: values.CoalesceTables, dst: M{"a": nil}, src: M{"b": 1}, want: M{"a": nil, "b": 1},
		},
		"lists are replaced, not merged": {
			fn: values.CoalesceTables, dst: M{"l": []any{"user"}}, src: M{"l": []any{"a", "b"}, "m": []any{"kept"}},
			want: M{"l": []any{"user"}, "m": []any{"kept"}},
		},
		"nested tables merge": {
			fn:   values.CoalesceTables,
			dst:  M{"a": M{"b": M{"c": 1}}},
			src:  M{"a": M{"b": M{"d": 2}, "e": 3}},
			want: M{"a": M{"b": M{"c": 1, "d": 2}, "e": 3}},
		},
		"nested null deletes deep default": {
			fn:   values.CoalesceTables,
			dst:  M{"a": M{"b": M{"c": nil}}},
			src:  M{"a": M{"b": M{"c": 1, "d": 2}}},
			want: M{"a": M{"b": M{"d": 2}}},
		},
		"null replacing a default table": {
			fn:   values.CoalesceTables,
			dst:  M{"t": nil},
			src:  M{"t": M{"x": 1}},
			want: M{},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var warnings []string
			got := tc.fn(tc.dst, tc.src, collect(&warnings))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("result = %#v\nwant     %#v", got, tc.want)
			}
			sort.Strings(warnings)
			if !sameList(warnings, tc.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tc.warnings)
			}
		})
	}
}

func sameList(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestCoalesceWarnings(t *testing.T) {
	level := func() *chart.Chart {
		return withDeps(&chart.Chart{Metadata: &chart.Metadata{Name: "level1"}, Values: M{"name": "moby"}},
			withDeps(&chart.Chart{Metadata: &chart.Metadata{Name: "level2"}, Values: M{"name": "pequod"}},
				&chart.Chart{
					Metadata: &chart.Metadata{Name: "level3"},
					Values: M{
						"name":  "ahab",
						"boat":  true,
						"spear": M{"tip": true, "sail": M{"cotton": true}},
						"list":  []any{"a"},
					},
				},
			),
		)
	}
	tests := map[string]struct {
		ch   *chart.Chart
		user map[string]any
		want []string
	}{
		"type mismatches deep in the tree": {
			ch: level(),
			user: M{"level2": M{"level3": M{
				"boat":  M{"mast": true},
				"spear": M{"tip": M{"sharp": true}, "sail": true},
			}}},
			want: []string{
				"warning: cannot overwrite table with non table for level1.level2.level3.spear.sail (map[cotton:true])",
				"warning: destination for level1.level2.level3.spear.tip is a table. Ignoring non-table value (true)",
				"warning: skipped value for level1.level2.level3.boat: Not a table.",
			},
		},
		"table over a list default": {
			ch:   level(),
			user: M{"level2": M{"level3": M{"list": M{"a": 1}}}},
			want: []string{"warning: skipped value for level1.level2.level3.list: Not a table."},
		},
		"scalar over a table default is silent": {
			ch:   level(),
			user: M{"level2": M{"level3": M{"spear": "none"}}},
		},
		"global that is not a table in the parent": {
			ch:   level(),
			user: M{"global": "flat"},
			// level2 gets no globals at all, so level3 has nothing to complain about.
			want: []string{"warning: skipping globals because source global is not a table."},
		},
		"global that is not a table in the subchart": {
			ch:   level(),
			user: M{"global": M{"a": 1}, "level2": M{"global": "flat"}},
			// level2 keeps its scalar global, which is then level3's source.
			want: []string{
				"warning: skipping globals because destination global is not a table.",
				"warning: skipping globals because source global is not a table.",
			},
		},
		"global table over a subchart scalar": {
			ch:   level(),
			user: M{"global": M{"a": M{"b": 1}}, "level2": M{"global": M{"a": "flat"}}},
			want: []string{`Conflict: cannot merge map onto non-map for "a". Skipping.`},
		},
		"global scalar over a subchart table": {
			ch:   level(),
			user: M{"global": M{"a": "flat"}, "level2": M{"global": M{"a": M{"b": 1}}}},
			want: []string{"key a is table. Skipping"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var warnings []string
			if _, err := values.CoalesceFor(dialect.Helm3, tc.ch, tc.user, collect(&warnings)); err != nil {
				t.Fatal(err)
			}
			sort.Strings(warnings)
			if !sameList(warnings, tc.want) {
				t.Errorf("warnings = %q\nwant       %q", warnings, tc.want)
			}
		})
	}
}

func TestCoalesceCases(t *testing.T) {
	parent := func() *chart.Chart {
		return withDeps(&chart.Chart{
			Metadata: &chart.Metadata{Name: "parent"},
			Values: M{
				"list":   []any{"a", "b"},
				"global": M{"region": "eu", "shared": M{"p": 1}},
				"sub":    M{"fromParent": "p", "override": "parent"},
			},
		}, &chart.Chart{
			Metadata: &chart.Metadata{Name: "sub"},
			Values: M{
				"override": "sub",
				"own":      "sub",
				"list":     []any{1, 2},
				"deleted":  "default",
				"global":   M{"region": "us", "subOnly": true, "shared": M{"s": 2, "p": 0}},
			},
		})
	}
	tests := map[string]struct {
		ch      *chart.Chart
		user    map[string]any
		want    map[string]any
		wantErr string
	}{
		"defaults only": {
			ch: parent(),
			want: M{
				"list":   []any{"a", "b"},
				"global": M{"region": "eu", "shared": M{"p": 1}},
				"sub": M{
					"fromParent": "p", "override": "parent", "own": "sub", "list": []any{1, 2}, "deleted": "default",
					"global": M{"region": "eu", "subOnly": true, "shared": M{"s": 2, "p": 1}},
				},
			},
		},
		"user values win over parent and subchart defaults; lists are replaced": {
			ch:   parent(),
			user: M{"list": []any{"z"}, "sub": M{"override": "user", "list": []any{3}}, "global": M{"region": "ap"}},
			want: M{
				"list":   []any{"z"},
				"global": M{"region": "ap", "shared": M{"p": 1}},
				"sub": M{
					"fromParent": "p", "override": "user", "own": "sub", "list": []any{3}, "deleted": "default",
					"global": M{"region": "ap", "subOnly": true, "shared": M{"s": 2, "p": 1}},
				},
			},
		},
		"user null deletes a subchart default": {
			ch:   parent(),
			user: M{"sub": M{"deleted": nil, "own": nil}},
			want: M{
				"list":   []any{"a", "b"},
				"global": M{"region": "eu", "shared": M{"p": 1}},
				"sub": M{
					"fromParent": "p", "override": "parent", "list": []any{1, 2},
					"global": M{"region": "eu", "subOnly": true, "shared": M{"s": 2, "p": 1}},
				},
			},
		},
		"parent null for a subchart value deletes it too": {
			ch: withDeps(&chart.Chart{
				Metadata: &chart.Metadata{Name: "parent"},
				Values:   M{"sub": M{"own": nil}},
			}, &chart.Chart{Metadata: &chart.Metadata{Name: "sub"}, Values: M{"own": "sub", "kept": 1}}),
			want: M{"sub": M{"kept": 1, "global": M{}}},
		},
		"user table for a subchart without defaults": {
			ch:   withDeps(&chart.Chart{Metadata: &chart.Metadata{Name: "p"}}, &chart.Chart{Metadata: &chart.Metadata{Name: "s"}}),
			user: M{"s": M{"x": 1}},
			want: M{"s": M{"x": 1, "global": M{}}},
		},
		"empty default table keeps user nulls (helm#31643)": {
			ch:   &chart.Chart{Metadata: &chart.Metadata{Name: "test"}, Values: M{"data": M{}}},
			user: M{"data": M{"foo": "bar", "baz": nil}},
			want: M{"data": M{"foo": "bar", "baz": nil}},
		},
		"subchart values that are not a table": {
			ch:      parent(),
			user:    M{"sub": "oops"},
			wantErr: "type mismatch on sub: %!t(string=oops)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := values.CoalesceFor(dialect.Helm3, tc.ch, tc.user, nil)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(map[string]any(got), tc.want) {
				t.Errorf("Coalesce =\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestCoalesceDoesNotChangeTheChart(t *testing.T) {
	c := moby()
	before := values.DeepCopy(c.Values)
	sub := c.Dependencies()[0]
	subBefore := values.DeepCopy(sub.Values)
	user, err := yamldoc.UnmarshalMap([]byte(userValuesYAML))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := values.CoalesceFor(dialect.Helm3, c, user, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Values, before) || !reflect.DeepEqual(sub.Values, subBefore) {
		t.Error("Coalesce changed the chart's default values")
	}
}
