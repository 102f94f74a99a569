package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// concurrencyChart is a chart whose templates are named so that Helm's order
// (deepest path first, then names descending) is the order of texts.
func concurrencyChart(name string, texts ...string) *chart.Chart {
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: name, Version: "1.0.0", Keywords: []string{"b", "a", "c"}}}
	for i, text := range texts {
		ch.Templates = append(ch.Templates, &chart.File{Name: fmt.Sprintf("templates/t%02d.yaml", len(texts)-i), Data: []byte(text)})
	}
	return ch
}

// TestConcurrentRenderKeepsHelmsOrder renders charts whose templates depend on
// one another through what they change, or fail several at once, with many
// workers and with one, and wants the same outcome: Helm's.
func TestConcurrentRenderKeepsHelmsOrder(t *testing.T) {
	filler := strings.Repeat(`{{ range until 50 }}{{ . }}{{ end }}`, 3)
	many := func(n int, text string) []string {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = filler + text
		}
		return texts
	}
	for name, tc := range map[string]struct {
		chart  func() *chart.Chart
		values map[string]any
		budget Budget
	}{
		"a later template sees what set put in values": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", append([]string{`{{ $_ := set .Values "x" "changed" }}`}, many(12, `{{ .Values.x }}`)...)...)
			},
			values: map[string]any{"x": "first"},
		},
		"unset in the middle of the order": {
			chart: func() *chart.Chart {
				texts := many(6, `{{ .Values.x }}`)
				texts = append(texts, `{{ $_ := unset .Values "x" }}`)
				return concurrencyChart("c", append(texts, many(6, `{{ .Values.x }}`)...)...)
			},
			values: map[string]any{"x": "there"},
		},
		"merge writes into a nested values table": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", append(many(4, `{{ toJson .Values.a }}`),
					append([]string{`{{ $_ := merge (dict) .Values.a .Values.b }}`}, many(4, `{{ toJson .Values.a }}`)...)...)...)
			},
			values: map[string]any{"a": map[string]any{"n": map[string]any{"k": 1}}, "b": map[string]any{"n": map[string]any{"j": 2}}},
		},
		"merge into a fresh map changes nothing shared": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", many(12, `{{ toJson (mergeOverwrite (dict "z" 1) .Values.a) }}`)...)
			},
			values: map[string]any{"a": map[string]any{"n": map[string]any{"k": 1}}},
		},
		"set on the top object lasts for the chart": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", append([]string{`{{ $_ := set $ "Extra" "yes" }}`}, many(6, `{{ .Extra }}`)...)...)
			},
		},
		"sortAlpha sorts the chart's keywords in place": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", append(many(3, `{{ .Chart.Keywords }}`),
					append([]string{`{{ sortAlpha .Chart.Keywords }}`}, many(3, `{{ .Chart.Keywords }}`)...)...)...)
			},
		},
		"subcharts' .Template as the templates before left it": {
			chart: func() *chart.Chart {
				parent := concurrencyChart("parent", many(4, `{{ .Subcharts.sub.Template }}|{{ .Template.Name }}`)...)
				sub := concurrencyChart("sub", many(4, `{{ .Template.Name }}`)...)
				sub.Templates = append(sub.Templates, &chart.File{Name: "templates/deeper/x.yaml", Data: []byte(`{{ .Template.Name }}`)},
					&chart.File{Name: "templates/deeper/more/y.yaml", Data: []byte(`{{ .Template.Name }}`)})
				parent.Templates = append(parent.Templates, &chart.File{Name: "templates/a/b/c/d.yaml", Data: []byte(`{{ .Subcharts.sub.Template }}`)})
				parent.AddDependency(sub)
				return parent
			},
		},
		"the first failure in order is the one reported": {
			chart: func() *chart.Chart {
				texts := many(10, `{{ if eq .Template.Name "c/templates/t03.yaml" "c/templates/t07.yaml" "c/templates/t09.yaml" }}{{ fail .Template.Name }}{{ end }}`)
				return concurrencyChart("c", texts...)
			},
		},
		"a failure after a change": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", append([]string{`{{ $_ := set .Values "x" "changed" }}`},
					many(8, `{{ if eq .Values.x "changed" }}{{ fail .Template.Name }}{{ end }}`)...)...)
			},
			values: map[string]any{"x": "first"},
		},
		"the output limit is met where Helm's order meets it": {
			chart: func() *chart.Chart {
				return concurrencyChart("c", many(12, `{{ .Template.Name }}`)...)
			},
			budget: Budget{MaxOutputBytes: int64(7*len(filler) + 3)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, d := range []dialect.Dialect{dialect.Helm3, dialect.Helm4} {
				e := Engine{Dialect: d, Budget: tc.budget}
				render := func(workers int) (map[string]string, string) {
					vals := map[string]any{}
					if tc.values != nil {
						vals = values.DeepCopy(tc.values).(map[string]any)
					}
					top := values.Values{"Values": vals, "Release": map[string]any{"Name": "r"}}
					out, err := e.render(context.Background(), tc.chart(), top, workers)
					if err != nil {
						if errors.Is(err, errShared) {
							t.Fatalf("%s: %d workers: errShared reached the caller: %v", d, workers, err)
						}
						return out, err.Error()
					}
					return out, ""
				}
				wantOut, wantErr := render(1)
				for range 20 {
					out, err := render(4)
					if err != wantErr {
						t.Fatalf("%s: error = %q, want %q", d, err, wantErr)
					}
					if !reflect.DeepEqual(out, wantOut) {
						t.Fatalf("%s: output = %v, want %v", d, out, wantOut)
					}
				}
			}
		})
	}
}

func TestSharedSet(t *testing.T) {
	inner := map[string]any{"k": 1}
	list := []string{"b", "a"}
	vals := map[string]any{"inner": inner, "list": []any{map[string]any{"deep": true}}}
	s := &sharedSet{maps: map[uintptr]struct{}{}}
	s.add(map[string]any{"Values": vals, "Chart": &struct{ Keywords []string }{list}})
	for name, tc := range map[string]struct {
		v    any
		want bool
	}{
		"a shared map":                  {v: vals, want: true},
		"a nested shared map":           {v: inner, want: true},
		"a map that holds a shared one": {v: map[string]any{"x": inner}, want: true},
		"a fresh map":                   {v: map[string]any{"k": 1}},
		"a shared list":                 {v: list, want: true},
		"part of a shared list":         {v: list[1:], want: true},
		"a fresh list":                  {v: []string{"a"}},
		"nil":                           {v: nil},
	} {
		t.Run(name, func(t *testing.T) {
			if got := s.reaches(tc.v); got != tc.want {
				t.Errorf("reaches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTplTemplate(t *testing.T) {
	for name, tc := range map[string]struct {
		text, want, wantErr string
	}{
		"plain text":                   {text: `{{ .Values.x }}`, want: "1"},
		"a template it defines":        {text: `{{ define "local" }}L{{ end }}{{ include "local" . }}`, want: "L"},
		"a template the chart defines": {text: `{{ include "chart" . }}`, want: "C"},
		"a name held in values":        {text: `{{ include .Values.name . }}`, wantErr: "nested reference name: gotpl"},
	} {
		t.Run(name, func(t *testing.T) {
			ch := concurrencyChart("c", `{{ tpl .Values.text . }}`)
			ch.Templates = append(ch.Templates, &chart.File{Name: "templates/_h.tpl", Data: []byte(`{{ define "chart" }}C{{ end }}`)})
			top := values.Values{"Values": map[string]any{"x": 1, "name": "gotpl", "text": tc.text}}
			out, err := Engine{}.Render(ch, top)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out["c/templates/t01.yaml"]; got != tc.want {
				t.Errorf("output = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIncludesByValue(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want bool
	}{
		"no include":                {text: `{{ .Values.x | quote }}`},
		"a literal name":            {text: `{{ include "x" . | nindent 2 }}`},
		"a name in values":          {text: `{{ include .Values.name . }}`, want: true},
		"a name built":              {text: `{{ if .x }}{{ range .y }}{{ (include (print "a" "b") .) }}{{ end }}{{ end }}`, want: true},
		"inside an else":            {text: `{{ with .x }}{{ else }}{{ $v := include $.n . }}{{ end }}`, want: true},
		"an include without a name": {text: `{{ . | include }}`, want: true},
	} {
		t.Run(name, func(t *testing.T) {
			trees, err := parseTpl(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := includesByValue(trees.Root); got != tc.want {
				t.Errorf("includesByValue = %v, want %v", got, tc.want)
			}
		})
	}
}

func parseTpl(text string) (*parse.Tree, error) {
	trees, err := parse.Parse("t", text, "", "", map[string]any{"include": true, "quote": true, "nindent": true, "print": true})
	if err != nil {
		return nil, err
	}
	return trees["t"], nil
}

func TestMemoSemverCompare(t *testing.T) {
	compare := baseFuncs()["semverCompare"].(func(string, string) (bool, error))
	memo := memoSemverCompare(compare)
	for name, tc := range map[string]struct{ constraint, version string }{
		"true":               {">=1.21-0", "v1.31.0"},
		"false":              {"<1.19", "1.31.0"},
		"bad constraint":     {">>1", "1.31.0"},
		"bad version":        {">=1", "x.y"},
		"pre-release":        {">=1.31.0", "1.31.0-gke.1"},
		"wildcard and range": {"1.2 - 1.4 || ^2.x", "2.3.4"},
	} {
		t.Run(name, func(t *testing.T) {
			want, wantErr := compare(tc.constraint, tc.version)
			for range 3 {
				got, err := memo(tc.constraint, tc.version)
				if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("semverCompare(%q, %q) = %v, %v, want %v, %v", tc.constraint, tc.version, got, err, want, wantErr)
				}
			}
		})
	}
}
