package engine_test

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

// helm4Chart is testdata of the Helm 4 rules: a chart "et" with the two partials
// below and one template t.yaml. Expected texts are what Helm v4.3.1 printed for
// the same chart (`helm template r ./et`), the "Error: " prefix left out.
func helm4Chart(text string) *chart.Chart {
	c := newChart("et",
		tpl("templates/_h.tpl", "{{- define \"inner\" }}{{ .Values.x.y.z }}{{ end }}\n{{- define \"outer\" }}{{ include \"inner\" . }}{{ end }}\n"),
		tpl("templates/t.yaml", text))
	return c
}

var helm4Values = M{"x": M{}, "list": []any{1.0}, "m": M{"a": 1.0, "b": []any{"x", 2.0}},
	"d": "1h30m", "num": 90.0, "f": 2.5, "s": "45"}

func TestHelm4Functions(t *testing.T) {
	tests := map[string]struct {
		text, want, wantErr string
	}{
		"mustToDuration of strings and numbers of seconds": {
			text: `{{ mustToDuration .Values.d }} {{ mustToDuration .Values.num }} {{ mustToDuration .Values.f }} {{ mustToDuration .Values.s }} {{ mustToDuration 7 }}`,
			want: "1h30m0s 1m30s 2.5s 45s 7s",
		},
		"duration conversions": {
			text: `{{ durationSeconds .Values.d }} {{ durationMilliseconds .Values.d }} {{ durationMicroseconds .Values.d }} {{ durationNanoseconds .Values.d }} {{ durationMinutes .Values.d }} {{ durationHours .Values.d }} {{ durationDays .Values.d }} {{ durationWeeks .Values.d }}`,
			want: "5400 5400000 5400000000 5400000000000 90 1.5 0.0625 0.008928571428571428",
		},
		"rounding, and what is no duration": {
			text: `{{ durationRoundTo .Values.d "1h" }} {{ durationTruncateTo .Values.d "1h" }} {{ durationRoundTo "1h29m" "bad" }} {{ durationSeconds "bad" }} {{ durationSeconds 1e300 }} {{ durationHours nil }} {{ durationSeconds "" }} {{ durationSeconds " 2.5 " }}`,
			want: "2h0m0s 1h0m0s 1h29m0s 0 0 0 0 2.5",
		},
		"mustToJson": {text: `{{ mustToJson (dict "f" (list 1 2)) }}`, want: `{"f":[1,2]}`},
		"mustToYaml": {text: `{{ mustToYaml .Values.m }}`, want: "a: 1\nb:\n- x\n- 2"},
		"mustToToml": {text: `{{ mustToToml .Values.m }}|{{ mustToToml (list 1 2) }}`, want: "a = 1.0\nb = [\"x\", 2.0]\n|[1, 2]"},
		"mustToDuration of nonsense": {
			text:    `{{ mustToDuration "soon" }}`,
			wantErr: `template: et/templates/t.yaml:1:3: executing "et/templates/t.yaml" at <mustToDuration "soon">: error calling mustToDuration: could not parse duration "soon"`,
		},
		"mustToDuration of nothing": {
			text:    `{{ mustToDuration "" }}`,
			wantErr: `template: et/templates/t.yaml:1:3: executing "et/templates/t.yaml" at <mustToDuration "">: error calling mustToDuration: empty duration`,
		},
		"mustToDuration overflow": {
			text:    `{{ mustToDuration 1e300 }}`,
			wantErr: `template: et/templates/t.yaml:1:3: executing "et/templates/t.yaml" at <mustToDuration 1e300>: error calling mustToDuration: duration seconds overflow: 1e+300`,
		},
		"mustToDuration of a list": {
			text:    `{{ mustToDuration (list 1) }}`,
			wantErr: `template: et/templates/t.yaml:1:3: executing "et/templates/t.yaml" at <mustToDuration (list 1)>: error calling mustToDuration: unsupported duration type []interface {}`,
		},
		"mustToYaml fails where toYaml prints nothing": {
			text:    `{{ toYaml (dict "f" .Values.fn) }}|{{ mustToYaml (dict "f" .Values.fn) }}`,
			wantErr: `template: et/templates/t.yaml:1:38: executing "et/templates/t.yaml" at <mustToYaml (dict "f" .Values.fn)>: error calling mustToYaml: error marshaling into JSON: json: unsupported type: func()`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			vals := M{}
			for k, v := range helm4Values {
				vals[k] = v
			}
			vals["fn"] = func() {}
			out, err := engine.Engine{Dialect: dialect.Helm4}.Render(helm4Chart(tc.text), topValues(vals))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v\nwant    %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out["et/templates/t.yaml"]; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Helm 3 has none of Helm 4's new functions, and mustToJson is sprig's.
func TestHelm3LacksHelm4Functions(t *testing.T) {
	for _, fn := range []string{"mustToYaml", "mustToToml", "mustToDuration", "durationSeconds", "durationMilliseconds",
		"durationMicroseconds", "durationNanoseconds", "durationMinutes", "durationHours", "durationDays", "durationWeeks"} {
		t.Run(fn, func(t *testing.T) {
			_, err := engine.Engine{}.Render(helm4Chart("{{ "+fn+" 1 }}"), topValues(M{}))
			want := `parse error at (et/templates/t.yaml:1): function "` + fn + `" not defined`
			if err == nil || err.Error() != want {
				t.Fatalf("error = %v, want %s", err, want)
			}
		})
	}
	for _, fn := range []string{"durationRoundTo", "durationTruncateTo"} {
		_, err := engine.Engine{}.Render(helm4Chart("{{ "+fn+" 1 1 }}"), topValues(M{}))
		if err == nil {
			t.Errorf("%s renders in Helm 3", fn)
		}
	}
	out, err := engine.Engine{}.Render(helm4Chart(`{{ mustToJson (list 1) }}`), topValues(M{}))
	if got := out["et/templates/t.yaml"]; err != nil || got != "[1]" {
		t.Errorf("Helm 3 mustToJson = %q, %v", got, err)
	}
}

func TestHelm4ExecErrorTrace(t *testing.T) {
	tests := map[string]struct {
		text, want string
		helm3      string
	}{
		"nil pointer": {
			text:  "a: {{ .Values.x.y.z }}",
			want:  "et/templates/t.yaml:1:13\n  executing \"et/templates/t.yaml\" at <.Values.x.y.z>:\n    nil pointer evaluating interface {}.z",
			helm3: `template: et/templates/t.yaml:1:13: executing "et/templates/t.yaml" at <.Values.x.y.z>: nil pointer evaluating interface {}.z`,
		},
		"through includes, one entry per template": {
			text: `a: {{ include "outer" . }}`,
			want: "et/templates/t.yaml:1:6\n  executing \"et/templates/t.yaml\" at <include \"outer\" .>:\n    error calling include:\n" +
				"et/templates/_h.tpl:2:24\n  executing \"outer\" at <include \"inner\" .>:\n    error calling include:\n" +
				"et/templates/_h.tpl:1:31\n  executing \"inner\" at <.Values.x.y.z>:\n    nil pointer evaluating interface {}.z",
		},
		"no such template": {
			text: `a: {{ include "nosuch" . }}`,
			want: "et/templates/t.yaml:1:6\n  executing \"et/templates/t.yaml\" at <include \"nosuch\" .>:\n    error calling include:\n" +
				`template: no template "nosuch" associated with template "gotpl"`,
		},
		"a function's own error keeps text/template's text": {
			text: "a: {{ index .Values.list 3 }}",
			want: `template: et/templates/t.yaml:1:6: executing "et/templates/t.yaml" at <index .Values.list 3>: error calling index: index out of range: 3`,
		},
		"tpl's error keeps its text": {
			text: `a: {{ tpl "{{ .Values.x.y.z }}" . }}`,
			want: `template: et/templates/t.yaml:1:6: executing "et/templates/t.yaml" at <tpl "{{ .Values.x.y.z }}" .>: error calling tpl: error during tpl function execution for "{{ .Values.x.y.z }}": template: gotpl:1:10: executing "gotpl" at <.Values.x.y.z>: nil pointer evaluating interface {}.z`,
		},
		"required stays one line": {
			text:  `a: {{ required "need it" .Values.nope }}`,
			want:  "execution error at (et/templates/t.yaml:1:6): need it",
			helm3: "execution error at (et/templates/t.yaml:1:6): need it",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := engine.Engine{Dialect: dialect.Helm4}.Render(helm4Chart(tc.text), topValues(helm4Values))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error =\n%v\nwant\n%s", err, tc.want)
			}
			if tc.helm3 == "" {
				return
			}
			_, err = engine.Engine{}.Render(helm4Chart(tc.text), topValues(helm4Values))
			if err == nil || err.Error() != tc.helm3 {
				t.Fatalf("Helm 3 error =\n%v\nwant\n%s", err, tc.helm3)
			}
		})
	}
}

// TestHelm4ChartObject: Helm 4 gives templates .Chart as a map by the metadata's Go
// field names. Expected texts are Helm v4.3.1's for the same chart.
func TestHelm4ChartObject(t *testing.T) {
	md := &chart.Metadata{
		APIVersion: "v2", Name: "cm", Version: "0.1.0", AppVersion: "1.0", Description: "a chart",
		Maintainers: []*chart.Maintainer{{Name: "me", Email: "me@x.io"}},
		Annotations: map[string]string{"foo": "bar"},
		Dependencies: []*chart.Dependency{{Name: "subby", Version: "0.2.0", Alias: "subby", Tags: []string{"a"}, Enabled: true,
			ImportValues: []any{map[string]string{"child": "x", "parent": "true"}}}},
	}
	tests := map[string]struct {
		text, want string
		helm3Err   string
	}{
		"toYaml lists every field by its Go name": {
			text: "{{ toYaml .Chart }}",
			want: `APIVersion: v2
Annotations:
  foo: bar
AppVersion: "1.0"
Condition: ""
Dependencies:
- Alias: subby
  Condition: ""
  Enabled: true
  ImportValues:
  - child: x
    parent: "true"
  Name: subby
  Repository: ""
  Tags:
  - a
  Version: 0.2.0
Deprecated: false
Description: a chart
Home: ""
Icon: ""
IsRoot: true
Keywords: []
KubeVersion: ""
Maintainers:
- Email: me@x.io
  Name: me
  URL: ""
Name: cm
Sources: []
Tags: ""
Type: ""
Version: 0.1.0`,
		},
		"fields read as before": {
			text: "{{ .Chart.Name }} {{ .Chart.Version }} {{ .Chart.IsRoot }} {{ .Chart.Annotations.foo }} {{ range .Chart.Maintainers }}{{ .Name }}{{ end }}",
			want: "cm 0.1.0 true bar me",
		},
		"a missing field is empty": {
			text:     "[{{ .Chart.Foo }}] [{{ .Chart.name }}] {{ hasKey .Chart \"Name\" }}",
			want:     "[] [] true",
			helm3Err: `template: cm/templates/t.yaml:1:10: executing "cm/templates/t.yaml" at <.Chart.Foo>: can't evaluate field Foo in type interface {}`,
		},
		"lists are never null": {
			text: "{{ toYaml .Chart.Sources }} {{ typeOf .Chart.Keywords }} {{ typeOf .Chart.Annotations }} {{ typeOf .Chart }}",
			want: "[] []interface {} map[string]string map[string]interface {}",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := &chart.Chart{Metadata: md, Templates: []*chart.File{tpl("templates/t.yaml", tc.text)}}
			out, err := engine.Engine{Dialect: dialect.Helm4}.Render(c, topValues(M{}))
			if err != nil {
				t.Fatal(err)
			}
			if got := out["cm/templates/t.yaml"]; got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if tc.helm3Err != "" {
				_, err := engine.Engine{}.Render(c, topValues(M{}))
				if err == nil || err.Error() != tc.helm3Err {
					t.Errorf("Helm 3 error = %v, want %s", err, tc.helm3Err)
				}
			}
		})
	}
}

func TestHelm4ChartObjectOfSubcharts(t *testing.T) {
	parent := newChart("p", tpl("templates/t.yaml", "{{ .Subcharts.s.Chart.Name }} {{ .Subcharts.s.Chart.IsRoot }}"))
	sub := newChart("s", tpl("templates/t.yaml", "{{ .Chart.IsRoot }} {{ .Chart.Dependencies | len }}"))
	parent.AddDependency(sub)
	out, err := engine.Engine{Dialect: dialect.Helm4}.Render(parent, topValues(M{"s": M{}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join([]string{out["p/templates/t.yaml"], out["p/charts/s/templates/t.yaml"]}, "|"); got != "s false|false 0" {
		t.Errorf("got %q", got)
	}
}
