package values_test

import (
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// TestReadByDialect: values files with several documents. Expected values and
// errors are what Helm v4.3.1 and v3.22.0 made of the same file given with -f.
func TestReadByDialect(t *testing.T) {
	tests := map[string]struct {
		in                 string
		helm4, helm3       map[string]any
		helm4Err, helm3Err string
	}{
		"one document": {
			in: "a: 1\n", helm4: M{"a": 1.0}, helm3: M{"a": 1.0},
		},
		"a leading separator": {
			in: "---\na: 1\n", helm4: M{"a": 1.0}, helm3: M{"a": 1.0},
		},
		"documents merge, later ones win, tables merge": {
			in:    "---\na: 1\nt:\n  x: 1\n---\nb: 2\nt:\n  z: 3\n--- # c\nc: 3\n",
			helm4: M{"a": 1.0, "b": 2.0, "c": 3.0, "t": M{"x": 1.0, "z": 3.0}},
			helm3: M{"a": 1.0, "t": M{"x": 1.0}},
		},
		"empty documents and comments": {
			in:    "a: 1\n---\n\n---\n# c\n---\nb: {c: 1}\n---\nb: {d: 2}\n...\n",
			helm4: M{"a": 1.0, "b": M{"c": 1.0, "d": 2.0}},
			helm3: M{"a": 1.0},
		},
		"CRLF line ends": {
			in:    "k: 1\r\n---\r\nk2: \"a\r\n  b\"\r\n",
			helm4: M{"k": 1.0, "k2": "a b"},
			helm3: M{"k": 1.0},
		},
		"no final line break": {
			in: "a: 1\n---\nb: 2", helm4: M{"a": 1.0, "b": 2.0}, helm3: M{"a": 1.0},
		},
		"text after a separator": {
			in:       "k: 1\n--- x\nk: 2\n",
			helm4Err: "error reading yaml document: invalid Yaml document separator: x",
			helm3:    M{"k": 1.0},
		},
		"four dashes": {
			in:       "a: 1\n----\nb: 1\n",
			helm4Err: "error reading yaml document: invalid Yaml document separator: -",
		},
		"a list document": {
			in:       "k: 1\n---\n- a\n",
			helm4Err: "cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
			helm3:    M{"k": 1.0},
		},
		"broken first document": {
			in:       "k: [1\n---\nk: 2\n",
			helm4Err: "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
			helm3Err: "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
		},
		"broken later document": {
			in:       "k: 1\n---\nk: [2\n",
			helm4Err: "cannot unmarshal yaml document: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, c := range []struct {
				d       dialect.Dialect
				want    map[string]any
				wantErr string
			}{{dialect.Helm4, tc.helm4, tc.helm4Err}, {dialect.Helm3, tc.helm3, tc.helm3Err}} {
				got, err := values.Read(c.d, []byte(tc.in))
				if c.wantErr != "" {
					if err == nil || err.Error() != c.wantErr {
						t.Errorf("%s: error = %v, want %q", c.d, err, c.wantErr)
					}
					continue
				}
				if c.want == nil {
					continue // not checked
				}
				if err != nil || !reflect.DeepEqual(got, c.want) {
					t.Errorf("%s: Read = %v, %v; want %v", c.d, got, err, c.want)
				}
			}
		})
	}
}

func TestOptionsByDialect(t *testing.T) {
	files := map[string]string{"multi.yaml": "a: 1\n---\nb: 2\n"}
	tests := map[string]struct {
		opts    values.Options
		want    map[string]any
		wantErr string
	}{
		"helm4 reads every document of a file": {
			opts: values.Options{ValueFiles: []string{"multi.yaml"}, Dialect: dialect.Helm4},
			want: M{"a": 1.0, "b": 2.0},
		},
		"helm3 reads the first": {
			opts: values.Options{ValueFiles: []string{"multi.yaml"}},
			want: M{"a": 1.0},
		},
		"helm4 --set-json takes a JSON object": {
			opts: values.Options{ValueFiles: []string{"multi.yaml"}, JSONValues: []string{` {"a": {"x": [1]}, "c": null}`, `b={"y":true}`}, Dialect: dialect.Helm4},
			want: M{"a": M{"x": []any{1.0}}, "b": M{"y": true}, "c": nil},
		},
		"helm4 --set-json with a broken object": {
			opts:    values.Options{JSONValues: []string{`{"a": `}, Dialect: dialect.Helm4},
			wantErr: `failed parsing --set-json data JSON: {"a": `,
		},
		"helm3 --set-json wants key=value": {
			opts:    values.Options{JSONValues: []string{`{"a": 1}`}},
			wantErr: `failed parsing --set-json data {"a": 1}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := &fakeReader{files: files}
			got, err := tc.opts.Merge(r.read)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Merge = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// nullsChart: chart defaults with nulls at several depths, for a parent and its
// subchart.
func nullsChart() *chart.Chart {
	return withDeps(&chart.Chart{
		Metadata: &chart.Metadata{Name: "nl", Dependencies: []*chart.Dependency{{Name: "sub", Version: "0.1.0"}}},
		Values: M{
			"a":      nil,
			"m":      M{"x": nil, "yy": 1.0, "deep": M{"z": nil, "w": []any{nil, 1.0}}},
			"u":      M{"x": nil},
			"sub":    M{"p": nil, "q": 2.0},
			"global": M{"g": nil, "h": 1.0},
			"list":   []any{nil},
		},
	}, &chart.Chart{
		Metadata: &chart.Metadata{Name: "sub", Version: "0.1.0"},
		Values:   M{"p": 1.0, "r": nil, "nn": M{"k": nil}, "global": M{"s": nil}},
	})
}

// TestCoalesceNullDefaultsByDialect: Helm 4 no longer copies the nulls of chart
// defaults into the values (so a parent's null default no longer deletes a
// subchart's value either); a user's null still deletes. Expected values are
// what `toJson .Values` printed in Helm v4.3.1 and v3.22.0 for the same chart with
// --set u.v=3.
func TestCoalesceNullDefaultsByDialect(t *testing.T) {
	tests := map[string]struct {
		d    dialect.Dialect
		want map[string]any
	}{
		"helm4": {d: dialect.Helm4, want: M{
			"global": M{"h": 1.0},
			"list":   []any{nil},
			"m":      M{"deep": M{"w": []any{nil, 1.0}}, "yy": 1.0},
			"sub":    M{"global": M{"h": 1.0}, "nn": M{}, "p": 1.0, "q": 2.0},
			"u":      M{"v": 3.0},
		}},
		"helm3": {d: dialect.Helm3, want: M{
			"a":      nil,
			"global": M{"g": nil, "h": 1.0},
			"list":   []any{nil},
			"m":      M{"deep": M{"w": []any{nil, 1.0}, "z": nil}, "x": nil, "yy": 1.0},
			"sub":    M{"global": M{"g": nil, "h": 1.0, "s": nil}, "nn": M{"k": nil}, "q": 2.0},
			"u":      M{"v": 3.0, "x": nil},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ch := nullsChart()
			user := M{"u": M{"v": 3.0}}
			if err := values.ProcessDependenciesFor(tc.d, ch, user, nil); err != nil {
				t.Fatal(err)
			}
			got, err := values.CoalesceFor(tc.d, ch, user, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(map[string]any(got), tc.want) {
				t.Errorf("got\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
	// A user's null still deletes a default, and merging keeps nulls.
	got, err := values.CoalesceFor(dialect.Helm4, &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Values: M{"a": 1.0, "b": nil}}, M{"a": nil}, nil)
	if err != nil || !reflect.DeepEqual(map[string]any(got), M{}) {
		t.Errorf("user null: %v, %v", got, err)
	}
}

// TestAliasesOfOneChartByDialect: a chart aliased twice whose own dependency is
// aliased. Helm 3's aliases share the dependency entries, so the second alias sees
// them already renamed and keeps its subchart under the chart's name; Helm 4
// copies them for each alias (template paths as Helm v4.3.1 and v3.22.0 printed).
func TestAliasesOfOneChartByDialect(t *testing.T) {
	build := func() *chart.Chart {
		leaf := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "leaf", Version: "0.3.0"}}
		sub := withDeps(&chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "sub", Version: "0.2.0",
			Dependencies: []*chart.Dependency{{Name: "leaf", Version: "0.3.0", Alias: "lf"}}}}, leaf)
		return withDeps(&chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "al", Version: "0.1.0",
			Dependencies: []*chart.Dependency{{Name: "sub", Version: "0.2.0", Alias: "one"}, {Name: "sub", Version: "0.2.0", Alias: "two"}}}}, sub)
	}
	paths := func(c *chart.Chart) []string {
		var out []string
		var walk func(*chart.Chart)
		walk = func(c *chart.Chart) {
			out = append(out, c.ChartFullPath())
			for _, d := range c.Dependencies() {
				walk(d)
			}
		}
		walk(c)
		return out
	}
	for d, want := range map[dialect.Dialect][]string{
		dialect.Helm4: {"al", "al/charts/one", "al/charts/one/charts/lf", "al/charts/two", "al/charts/two/charts/lf"},
		dialect.Helm3: {"al", "al/charts/one", "al/charts/one/charts/lf", "al/charts/two", "al/charts/two/charts/leaf"},
	} {
		ch := build()
		if err := values.ProcessDependenciesFor(d, ch, M{}, nil); err != nil {
			t.Fatal(err)
		}
		if got := paths(ch); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}
