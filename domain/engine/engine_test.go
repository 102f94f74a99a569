package engine_test

import (
	"errors"
	"fmt"
	"net"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

type M = map[string]any

// tpl is a template file.
func tpl(name, text string) *chart.File { return &chart.File{Name: name, Data: []byte(text)} }

// newChart is a chart with templates; Metadata is all the engine reads.
func newChart(name string, templates ...*chart.File) *chart.Chart {
	return &chart.Chart{Metadata: &chart.Metadata{Name: name, Version: "1.2.3"}, Templates: templates}
}

// topValues is the top-level object the action layer passes to Render.
func topValues(vals M) values.Values {
	return values.Values{
		"Values":  values.Values(vals),
		"Release": M{"Name": "TestRelease", "Namespace": "ns"},
	}
}

func TestRender(t *testing.T) {
	c := newChart("moby",
		tpl("templates/test1", "{{.Values.outer | title }} {{.Values.inner | title}}"),
		tpl("templates/test2", "{{.Values.global.callme | lower }}"),
		tpl("templates/test3", "{{.noValue}}"),
		tpl("templates/test4", "{{toJson .Values}}"),
		tpl("templates/test5", "{{getHostByName \"helm.sh\"}}"),
		tpl("templates/test6", "{{ .Values.missing }}|{{ .Values.global.missing }}|{{ index .Values \"missing\" }}"),
		tpl("templates/test7", `{{ lookup "v1" "Namespace" "" "unlikelynamespace99999999" }}`),
		tpl("templates/_partial.tpl", "{{ define \"p\" }}partial{{ end }}"),
	)
	c.Values = M{"outer": "DEFAULT", "inner": "DEFAULT"}
	vals := M{"outer": "spouter", "inner": "inn", "global": M{"callme": "Ishmael"}}

	out, err := engine.Engine{}.Render(c, topValues(vals))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"moby/templates/test1": "Spouter Inn",
		"moby/templates/test2": "ishmael",
		"moby/templates/test3": "",
		"moby/templates/test4": `{"global":{"callme":"Ishmael"},"inner":"inn","outer":"spouter"}`,
		"moby/templates/test5": "",
		"moby/templates/test6": "||",
		"moby/templates/test7": "map[]",
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("Render =\n%v\nwant\n%v", out, want)
	}
}

func TestRenderErrors(t *testing.T) {
	// Error texts are Helm v3.22's for the same templates.
	tests := map[string]struct {
		templates []*chart.File
		strict    bool
		wantErr   string
		wantSufx  bool
	}{
		"undefined function": {
			templates: []*chart.File{tpl("templates/undefined_function", `{{foo}}`)},
			wantErr:   `parse error at (bad/templates/undefined_function:1): function "foo" not defined`,
		},
		"undefined variable": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ $x }}`)},
			wantErr:   `parse error at (bad/templates/t.yaml:1): undefined variable "$x"`,
		},
		"missing if condition": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ if }}`)},
			wantErr:   `parse error at (bad/templates/t.yaml:1): missing value for if`,
		},
		"parse error in a partial": {
			templates: []*chart.File{tpl("templates/ok.yaml", "ok"), tpl("templates/_helpers.tpl", `{{ define "x" }}`)},
			wantErr:   `parse error at (bad/templates/_helpers.tpl:1): unexpected EOF`,
		},
		"required": {
			templates: []*chart.File{tpl("templates/missing_required", `{{required "foo is required" .Values.foo}}`)},
			wantErr:   `execution error at (bad/templates/missing_required:1:2): foo is required`,
		},
		"required with colons": {
			templates: []*chart.File{tpl("templates/t", `{{required ":this: message: has many: colons:" .Values.foo}}`)},
			wantErr:   `execution error at (bad/templates/t:1:2): :this: message: has many: colons:`,
		},
		"required on an empty string, in a pipeline (helm#6044)": {
			templates: []*chart.File{tpl("templates/issue6044", "{{ $someEmptyValue := \"\" }}\n{{ $myvar := \"abc\" }}\n{{- required (printf \"%s: something is missing\" $myvar) $someEmptyValue | repeat 0 }}")},
			wantErr:   `execution error at (bad/templates/issue6044:3:4): abc: something is missing`,
		},
		"required with newlines": {
			templates: []*chart.File{tpl("templates/issue9981", `{{required "foo is required\nmore info after the break" .Values.foo}}`)},
			wantErr:   "execution error at (bad/templates/issue9981:1:2): foo is required\nmore info after the break",
		},
		"fail": {
			templates: []*chart.File{tpl("templates/failtpl", `All your base are belong to us{{ fail "This is an error" }}`)},
			wantErr:   `execution error at (bad/templates/failtpl:1:33): This is an error`,
		},
		"fail with newlines": {
			templates: []*chart.File{tpl("templates/issue9981", `{{fail "something is wrong\nlinebreak"}}`)},
			wantErr:   "execution error at (bad/templates/issue9981:1:2): something is wrong\nlinebreak",
		},
		"fail inside tpl": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ tpl "{{ fail \"inner\" }}" . }}`)},
			wantErr:   `execution error at (bad/templates/t.yaml:1:3): inner`,
		},
		"required inside an included define": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ include "c.x" . }}{{ define "c.x" }}{{ required "deep" .Values.none }}{{ end }}`)},
			wantErr:   `execution error at (bad/templates/t.yaml:1:3): deep`,
		},
		"field of a missing table": {
			templates: []*chart.File{tpl("templates/t.yaml", `x: {{ .Values.missing.deeper }}`)},
			wantErr:   `template: bad/templates/t.yaml:1:13: executing "bad/templates/t.yaml" at <.Values.missing.deeper>: nil pointer evaluating interface {}.deeper`,
		},
		"include of an undefined template": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ include "nope" . }}`)},
			wantErr:   `template: bad/templates/t.yaml:1:3: executing "bad/templates/t.yaml" at <include "nope" .>: error calling include: template: no template "nope" associated with template "gotpl"`,
		},
		"template of an undefined template": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ template "nope" . }}`)},
			wantErr:   `template: bad/templates/t.yaml:1:12: executing "bad/templates/t.yaml" at <{{template "nope" .}}>: template "nope" not defined`,
		},
		"tpl parse error": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ tpl "{{ .Values.x" . }}`)},
			wantErr:   `template: bad/templates/t.yaml:1:3: executing "bad/templates/t.yaml" at <tpl "{{ .Values.x" .>: error calling tpl: cannot parse template "{{ .Values.x": template: gotpl:1: unclosed action`,
		},
		"tpl execution error": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ tpl "{{ include \"nope\" . }}" . }}`)},
			wantErr:   `template: bad/templates/t.yaml:1:3: executing "bad/templates/t.yaml" at <tpl "{{ include \"nope\" . }}" .>: error calling tpl: error during tpl function execution for "{{ include \"nope\" . }}": template: gotpl:1:3: executing "gotpl" at <include "nope" .>: error calling include: template: no template "nope" associated with template "gotpl"`,
		},
		"strict: missing key": {
			templates: []*chart.File{tpl("templates/t.yaml", `{{ .Values.noSuchKey }}`)},
			strict:    true,
			wantErr:   `template: bad/templates/t.yaml:1:10: executing "bad/templates/t.yaml" at <.Values.noSuchKey>: map has no entry for key "noSuchKey"`,
		},
		"strict: missing key inside tpl": {
			templates: []*chart.File{tpl("templates/manifest", `missingValue: {{tpl "{{.Values.noSuchKey}}" .}}`)},
			strict:    true,
			wantErr:   `template: bad/templates/manifest:1:16: executing "bad/templates/manifest" at <tpl "{{.Values.noSuchKey}}" .>: error calling tpl: error during tpl function execution for "{{.Values.noSuchKey}}": template: gotpl:1:9: executing "gotpl" at <.Values.noSuchKey>: map has no entry for key "noSuchKey"`,
		},
		"endless include recursion": {
			templates: []*chart.File{
				tpl("templates/base", `{{include "recursion" . }}`),
				tpl("templates/recursion", `{{define "recursion"}}{{include "recursion" . }}{{end}}`),
			},
			wantErr:  "error calling include: rendering template has a nested reference name: recursion: unable to execute template",
			wantSufx: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := engine.Engine{Strict: tc.strict}.Render(newChart("bad", tc.templates...), topValues(M{}))
			if err == nil {
				t.Fatalf("Render = %v, want an error", out)
			}
			if len(out) != 0 {
				t.Errorf("Render returned output with its error: %v", out)
			}
			if tc.wantSufx {
				if !strings.HasSuffix(err.Error(), tc.wantErr) {
					t.Errorf("error does not end with %q:\n%.300s...", tc.wantErr, err)
				}
				return
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
			}
		})
	}
}

func TestRenderLintMode(t *testing.T) {
	c := newChart("conan",
		tpl("templates/quote", `All your base are belong to {{ required "A valid 'who' is required" .Values.who }}`),
		tpl("templates/bases", `All {{ required "A valid 'bases' is required" .Values.bases }} of them!`),
		tpl("templates/fail", `Failed {{ fail "This is an error" }}here`),
		tpl("templates/lookup", `{{ lookup "v1" "Pod" "ns" "p" }}`),
	)
	tests := map[string]struct {
		lint         bool
		vals         M
		want         map[string]string
		wantWarnings []string
		wantErr      string
	}{
		"values given": {
			lint: true,
			vals: M{"who": "us", "bases": 2},
			want: map[string]string{
				"conan/templates/quote":  "All your base are belong to us",
				"conan/templates/bases":  "All 2 of them!",
				"conan/templates/fail":   "Failed here",
				"conan/templates/lookup": "map[]",
			},
			wantWarnings: []string{"[INFO] Fail: This is an error"},
		},
		"missing required values become empty": {
			lint: true,
			vals: M{"who": "us"},
			want: map[string]string{
				"conan/templates/quote":  "All your base are belong to us",
				"conan/templates/bases":  "All  of them!",
				"conan/templates/fail":   "Failed here",
				"conan/templates/lookup": "map[]",
			},
			wantWarnings: []string{"[INFO] Fail: This is an error", "[INFO] Missing required value: A valid 'bases' is required"},
		},
		"not linting": {
			vals:    M{"who": "us", "bases": 2},
			wantErr: "execution error at (conan/templates/fail:1:10): This is an error",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var warnings []string
			e := engine.Engine{
				LintMode: tc.lint,
				Warn:     func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) },
			}
			if tc.lint {
				e.Lookup = func(string, string, string, string) (map[string]any, error) {
					return nil, errors.New("lookup must not reach the cluster when linting")
				}
			}
			out, err := e.Render(c, topValues(tc.vals))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, tc.want) {
				t.Errorf("Render =\n%v\nwant\n%v", out, tc.want)
			}
			sort.Strings(warnings)
			if !reflect.DeepEqual(warnings, tc.wantWarnings) {
				t.Errorf("warnings = %q, want %q", warnings, tc.wantWarnings)
			}
		})
	}
}

func TestRenderNestedValuesAndBuiltins(t *testing.T) {
	deepest := newChart("deepest",
		tpl("templates/inner.tpl", `And this same {{.Values.what}} that smiles {{.Values.global.when}}`),
		tpl("templates/release.tpl", `Tomorrow will be {{default "happy" .Release.Name }}`),
		tpl("templates/builtins", `{{.Template.Name}}|{{.Template.BasePath}}|{{.Chart.Name}}|{{.Chart.IsRoot}}|{{.Release.Namespace}}`),
	)
	deepest.Values = M{"what": "milkshake", "where": "here"}
	inner := newChart("herrick", tpl("templates/inner.tpl", `Old {{.Values.who}} is still a-flyin'`))
	inner.Values = M{"who": "Robert", "what": "glasses"}
	inner.Files = []*chart.File{{Name: "author", Data: []byte("Herrick")}, {Name: "book/title.txt", Data: []byte("Hesperides")}}
	inner.AddDependency(deepest)
	outer := newChart("top",
		tpl("templates/outer.tpl", `Gather ye {{.Values.what}} while ye may`),
		tpl("templates/subcharts.tpl", `The glorious Lamp of {{.Subcharts.herrick.Subcharts.deepest.Values.where}}, the {{.Subcharts.herrick.Values.what}}`),
		tpl("templates/subfiles", `{{.Subcharts.herrick.Chart.Name}} {{.Subcharts.herrick.Files.author | printf "%s"}} {{.Subcharts.herrick.Files.Get "book/title.txt"}}`),
		tpl("templates/builtins", `{{.Template.Name}}|{{.Template.BasePath}}|{{.Chart.Name}}|{{.Chart.IsRoot}}|{{.Chart.Version}}`),
	)
	outer.Values = M{"what": "stinkweed", "who": "me", "herrick": M{"who": "time", "what": "Sun"}}
	outer.AddDependency(inner)

	user := M{
		"what":    "rosebuds",
		"herrick": M{"deepest": M{"what": "flower", "where": "Heaven"}},
		"global":  M{"when": "to-day"},
	}
	vals, err := values.CoalesceFor(dialect.Helm3, outer, user, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Engine{}.Render(outer, values.Values{"Values": vals, "Release": M{"Name": "dyin", "Namespace": "ns"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"top/templates/outer.tpl":                                 "Gather ye rosebuds while ye may",
		"top/templates/subcharts.tpl":                             "The glorious Lamp of Heaven, the Sun",
		"top/templates/subfiles":                                  "herrick Herrick Hesperides",
		"top/templates/builtins":                                  "top/templates/builtins|top/templates|top|true|1.2.3",
		"top/charts/herrick/templates/inner.tpl":                  "Old time is still a-flyin'",
		"top/charts/herrick/charts/deepest/templates/inner.tpl":   "And this same flower that smiles to-day",
		"top/charts/herrick/charts/deepest/templates/release.tpl": "Tomorrow will be dyin",
		"top/charts/herrick/charts/deepest/templates/builtins":    "top/charts/herrick/charts/deepest/templates/builtins|top/charts/herrick/charts/deepest/templates|deepest|false|ns",
	}
	if !reflect.DeepEqual(out, want) {
		for k, v := range out {
			if want[k] != v {
				t.Errorf("%s = %q, want %q", k, v, want[k])
			}
		}
		t.Errorf("Render =\n%v\nwant\n%v", out, want)
	}
}

func TestRenderDefinesAcrossCharts(t *testing.T) {
	tests := map[string]struct {
		build func() *chart.Chart
		want  map[string]string
	}{
		"parent's define wins over the subchart's": {
			build: func() *chart.Chart {
				p := newChart("parent",
					tpl("templates/_helpers.tpl", `{{- define "test" -}}parent value{{- end -}}`),
					tpl("templates/test.yaml", `{{ tpl "{{ include \"test\" . }}" . }}|{{ include "test" . }}`),
				)
				p.AddDependency(newChart("child",
					tpl("templates/_helpers.tpl", `{{- define "test" -}}child value{{- end -}}`),
					tpl("templates/use.yaml", `{{ include "test" . }}`),
				))
				return p
			},
			want: map[string]string{
				"parent/templates/test.yaml":             "parent value|parent value",
				"parent/charts/child/templates/use.yaml": "parent value",
			},
		},
		"a subchart's define is visible to the parent": {
			build: func() *chart.Chart {
				p := newChart("outerchart", tpl("templates/outer", `Hello {{template "myblock"}}`))
				p.AddDependency(newChart("innerchart", tpl("templates/inner", `{{define "myblock"}}World{{end}}`)))
				return p
			},
			want: map[string]string{
				"outerchart/templates/outer":                   "Hello World",
				"outerchart/charts/innerchart/templates/inner": "",
			},
		},
		"library subchart: defines only, nothing rendered": {
			build: func() *chart.Chart {
				lib := newChart("lib",
					tpl("templates/_helpers.tpl", `{{- define "lib.name" -}}from {{ .Chart.Name }}{{- end -}}`),
					tpl("templates/configmap.yaml", `should not render`),
				)
				lib.Metadata.Type = "library"
				p := newChart("app", tpl("templates/cm.yaml", `{{ include "lib.name" . }}`))
				p.AddDependency(lib)
				return p
			},
			want: map[string]string{"app/templates/cm.yaml": "from app"},
		},
		"library type in any case": {
			build: func() *chart.Chart {
				lib := newChart("lib", tpl("templates/configmap.yaml", `should not render`))
				lib.Metadata.Type = "Library"
				p := newChart("app", tpl("templates/cm.yaml", `ok`))
				p.AddDependency(lib)
				return p
			},
			want: map[string]string{"app/templates/cm.yaml": "ok"},
		},
		"root library chart renders nothing": {
			build: func() *chart.Chart {
				lib := newChart("lib", tpl("templates/cm.yaml", `x`), tpl("templates/_h.tpl", `{{ define "h" }}h{{ end }}`))
				lib.Metadata.Type = "library"
				return lib
			},
			want: map[string]string{},
		},
		"partials are parsed but not output": {
			build: func() *chart.Chart {
				return newChart("p",
					tpl("templates/_a.tpl", `{{ define "a" }}A{{ end }}not output`),
					tpl("templates/sub/_b.tpl", `{{ define "b" }}B{{ end }}`),
					tpl("templates/x.yaml", `{{ include "a" . }}{{ include "b" . }}`),
				)
			},
			want: map[string]string{"p/templates/x.yaml": "AB"},
		},
		"nil template entries are skipped": {
			build: func() *chart.Chart {
				return newChart("p", nil, tpl("templates/x.yaml", `x`))
			},
			want: map[string]string{"p/templates/x.yaml": "x"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// Template order is map order inside the engine; repeat to catch flakiness.
			for i := range 20 {
				out, err := engine.Engine{}.Render(tc.build(), topValues(M{}))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(out, tc.want) {
					t.Fatalf("iteration %d: Render =\n%v\nwant\n%v", i, out, tc.want)
				}
			}
		})
	}
}

func TestRenderIsRoot(t *testing.T) {
	p := newChart("parent", tpl("templates/isroot", "{{.Chart.IsRoot}}"))
	p.AddDependency(newChart("child", tpl("templates/isroot", "{{.Chart.IsRoot}}")))
	out, err := engine.Engine{}.Render(p, topValues(M{}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"parent/charts/child/templates/isroot": "false",
		"parent/templates/isroot":              "true",
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("Render = %v, want %v", out, want)
	}
}

func TestRenderTpl(t *testing.T) {
	tests := map[string]struct {
		templates []*chart.File
		files     []*chart.File
		vals      M
		want      map[string]string
	}{
		"values": {
			templates: []*chart.File{tpl("templates/base", `Evaluate tpl {{tpl "Value: {{ .Values.value}}" .}}`)},
			vals:      M{"value": "myvalue"},
			want:      map[string]string{"T/templates/base": "Evaluate tpl Value: myvalue"},
		},
		"functions": {
			templates: []*chart.File{tpl("templates/base", `Evaluate tpl {{tpl "Value: {{ .Values.value | quote}}" .}}`)},
			vals:      M{"value": "myvalue"},
			want:      map[string]string{"T/templates/base": `Evaluate tpl Value: "myvalue"`},
		},
		"include of a partial sees the calling template's name": {
			templates: []*chart.File{
				tpl("templates/base", "{{ tpl \"{{include `T/templates/_partial` .  | quote }}\" .}}"),
				tpl("templates/_partial", `{{.Template.Name}}`),
			},
			want: map[string]string{"T/templates/base": `"T/templates/base"`},
		},
		"template text from a file, with defines in it": {
			templates: []*chart.File{
				tpl("templates/base", `{{ tpl (.Files.Get .Values.filename) . }}`),
				tpl("templates/_function", `{{define "test-function"}}test-function{{end}}`),
			},
			files: []*chart.File{
				{Name: "test", Data: []byte(`{{ tpl (.Files.Get .Values.filename2) .}}`)},
				{Name: "test2", Data: []byte(`{{include "test-function" .}}{{define "nested-define"}}nested-define-content{{end}} {{include "nested-define" .}}`)},
			},
			vals: M{"filename": "test", "filename2": "test2"},
			want: map[string]string{"T/templates/base": "test-function nested-define-content"},
		},
		"empty results": {
			templates: []*chart.File{
				tpl("templates/empty-string", `{{tpl "" .}}`),
				tpl("templates/empty-action", `{{tpl "{{ \"\"}}" .}}`),
				tpl("templates/only-defines", `{{tpl "{{define \"not-invoked\"}}not-rendered{{end}}" .}}`),
			},
			want: map[string]string{
				"T/templates/empty-string": "",
				"T/templates/empty-action": "",
				"T/templates/only-defines": "",
			},
		},
		"template name and base path, given or from the data": {
			templates: []*chart.File{
				tpl("templates/default-basepath", `{{tpl "{{ .Template.BasePath }}" .}}`),
				tpl("templates/default-name", `{{tpl "{{ .Template.Name }}" .}}`),
				tpl("templates/modified-basepath", `{{tpl "{{ .Template.BasePath }}" .Values.dot}}`),
				tpl("templates/modified-name", `{{tpl "{{ .Template.Name }}" .Values.dot}}`),
				tpl("templates/modified-field", `{{tpl "{{ .Template.Field }}" .Values.dot}}`),
			},
			vals: M{"dot": M{"Template": M{"BasePath": "path/to/template", "Name": "name-of-template", "Field": "extra-field"}}},
			want: map[string]string{
				"T/templates/default-basepath":  "T/templates",
				"T/templates/default-name":      "T/templates/default-name",
				"T/templates/modified-basepath": "path/to/template",
				"T/templates/modified-name":     "name-of-template",
				"T/templates/modified-field":    "extra-field",
			},
		},
		"redefining inside tpl stays inside tpl": {
			templates: []*chart.File{
				tpl("templates/_partials", `{{define "partial"}}original-in-partial{{end}}`),
				tpl("templates/partial", `before: {{include "partial" .}}\n{{tpl .Values.partialText .}}\nafter: {{include "partial" .}}`),
				tpl("templates/manifest", `{{define "manifest"}}original-in-manifest{{end}}`+
					`before: {{include "manifest" .}}\n{{tpl .Values.manifestText .}}\nafter: {{include "manifest" .}}`),
				tpl("templates/manifest-only", `{{define "manifest-only"}}only-in-manifest{{end}}`+
					`before: {{include "manifest-only" .}}\n{{tpl .Values.manifestOnlyText .}}\nafter: {{include "manifest-only" .}}`),
				tpl("templates/nested", `{{define "nested"}}original-in-manifest{{end}}`+
					`{{define "nested-outer"}}original-outer-in-manifest{{end}}`+
					`before: {{include "nested" .}} {{include "nested-outer" .}}\n`+
					`{{tpl .Values.nestedText .}}\n`+
					`after: {{include "nested" .}} {{include "nested-outer" .}}`),
			},
			vals: M{
				"partialText":      `{{define "partial"}}redefined-in-tpl{{end}}tpl: {{include "partial" .}}`,
				"manifestText":     `{{define "manifest"}}redefined-in-tpl{{end}}tpl: {{include "manifest" .}}`,
				"manifestOnlyText": `tpl: {{include "manifest-only" .}}`,
				"nestedText": `{{define "nested"}}redefined-in-tpl{{end}}` +
					`{{define "nested-outer"}}redefined-outer-in-tpl{{end}}` +
					`before-inner-tpl: {{include "nested" .}} {{include "nested-outer" . }}\n` +
					`{{tpl .Values.innerText .}}\n` +
					`after-inner-tpl: {{include "nested" .}} {{include "nested-outer" . }}`,
				"innerText": `{{define "nested"}}redefined-in-inner-tpl{{end}}inner-tpl: {{include "nested" .}} {{include "nested-outer" . }}`,
			},
			want: map[string]string{
				"T/templates/partial":       `before: original-in-partial\ntpl: redefined-in-tpl\nafter: original-in-partial`,
				"T/templates/manifest":      `before: original-in-manifest\ntpl: redefined-in-tpl\nafter: original-in-manifest`,
				"T/templates/manifest-only": `before: only-in-manifest\ntpl: only-in-manifest\nafter: only-in-manifest`,
				"T/templates/nested": `before: original-in-manifest original-outer-in-manifest\n` +
					`before-inner-tpl: redefined-in-tpl redefined-outer-in-tpl\n` +
					`inner-tpl: redefined-in-inner-tpl redefined-outer-in-tpl\n` +
					`after-inner-tpl: redefined-in-tpl redefined-outer-in-tpl\n` +
					`after: original-in-manifest original-outer-in-manifest`,
			},
		},
		"missing key renders empty": {
			templates: []*chart.File{tpl("templates/manifest", `missingValue: {{tpl "{{.Values.noSuchKey}}" .}}`)},
			want:      map[string]string{"T/templates/manifest": `missingValue: `},
		},
		"include with a dict and indent": {
			templates: []*chart.File{
				tpl("templates/quote", `{{include "T/templates/_partial" . | indent 2}} dead.`),
				tpl("templates/_partial", `{{.Release.Name}} - he`),
			},
			want: map[string]string{"T/templates/quote": "  TestRelease - he dead."},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := newChart("T", tc.templates...)
			c.Files = tc.files
			out, err := engine.Engine{}.Render(c, topValues(tc.vals))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, tc.want) {
				t.Errorf("Render =\n%q\nwant\n%q", out, tc.want)
			}
		})
	}
}

func TestRenderManyIncludesOfOneTemplate(t *testing.T) {
	// The recursion limit counts nesting, not calls.
	const times = 4000
	phrase := "All work and no play makes Jack a dull boy"
	c := newChart("overlook",
		tpl("templates/quote", strings.Repeat(`{{include "overlook" . }}`, times)),
		tpl("templates/_function", `{{define "overlook"}}{{printf "`+phrase+`\n"}}{{end}}`),
	)
	out, err := engine.Engine{}.Render(c, topValues(M{}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out["overlook/templates/quote"], strings.Repeat(phrase+"\n", times); got != want {
		t.Errorf("output has %d bytes, want %d", len(got), len(want))
	}
}

func TestRenderLookup(t *testing.T) {
	c := newChart("moby",
		tpl("templates/single", `{{ with lookup "v1" "Namespace" "" "default" }}{{ .metadata.name }}{{ end }}`),
		tpl("templates/list", `{{ (lookup "v1" "Pod" "ns1" "").items | default list | len }}`),
		tpl("templates/missing", `{{ lookup "v1" "Pod" "" "absent" }}`),
	)
	type call struct{ apiVersion, kind, namespace, name string }
	tests := map[string]struct {
		lookup    engine.LookupFunc
		want      map[string]string
		wantCalls []call
		wantErr   string
	}{
		"no cluster": {
			want: map[string]string{"moby/templates/single": "", "moby/templates/list": "0", "moby/templates/missing": "map[]"},
		},
		"with a cluster": {
			lookup: func(apiVersion, kind, namespace, name string) (map[string]any, error) {
				switch {
				case kind == "Namespace" && name == "default":
					return M{"metadata": M{"name": "default"}}, nil
				case kind == "Pod" && name == "":
					return M{"items": []any{M{}, M{}}}, nil
				}
				return M{}, nil
			},
			want: map[string]string{"moby/templates/single": "default", "moby/templates/list": "2", "moby/templates/missing": "map[]"},
			wantCalls: []call{
				{"v1", "Namespace", "", "default"},
				{"v1", "Pod", "", "absent"},
				{"v1", "Pod", "ns1", ""},
			},
		},
		"lookup failure": {
			lookup: func(string, string, string, string) (map[string]any, error) {
				return nil, errors.New("kaboom")
			},
			wantErr: "kaboom",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var calls []call
			e := engine.Engine{}
			if tc.lookup != nil {
				e.Lookup = func(a, k, ns, n string) (map[string]any, error) {
					mu.Lock()
					calls = append(calls, call{a, k, ns, n})
					mu.Unlock()
					return tc.lookup(a, k, ns, n)
				}
			}
			out, err := e.Render(c, topValues(M{}))
			if checkError(t, err, tc.wantErr) {
				return
			}
			if !reflect.DeepEqual(out, tc.want) {
				t.Errorf("Render = %v, want %v", out, tc.want)
			}
			sort.Slice(calls, func(i, j int) bool { return fmt.Sprint(calls[i]) < fmt.Sprint(calls[j]) })
			if !reflect.DeepEqual(calls, tc.wantCalls) && (len(calls) != 0 || len(tc.wantCalls) != 0) {
				t.Errorf("lookup calls = %v, want %v", calls, tc.wantCalls)
			}
		})
	}
}

func TestRenderGetHostByName(t *testing.T) {
	c := newChart("moby", tpl("templates/dns", `{{ getHostByName "localhost" }}`))
	out, err := engine.Engine{}.Render(c, topValues(M{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := out["moby/templates/dns"]; got != "" {
		t.Errorf("getHostByName without EnableDNS = %q, want empty", got)
	}
	if addrs, err := net.LookupHost("localhost"); err != nil || len(addrs) == 0 {
		prereq.Missing(t, "localhost does not resolve here: %v", err)
	}
	out, err = engine.Engine{EnableDNS: true}.Render(c, topValues(M{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := out["moby/templates/dns"]; net.ParseIP(got) == nil {
		t.Errorf("getHostByName with EnableDNS = %q, want an address", got)
	}
}

func TestRenderFilesInTemplates(t *testing.T) {
	c := newChart("files",
		tpl("templates/get", `{{ .Files.Get "config/app.ini" }}`),
		tpl("templates/glob", `{{ (.Files.Glob "config/*").AsConfig }}`),
		tpl("templates/secrets", `{{ (.Files.Glob "config/app.ini").AsSecrets }}`),
		tpl("templates/lines", `{{ range .Files.Lines "config/list.txt" }}[{{ . }}]{{ end }}`),
		tpl("templates/bytes", `{{ .Files.GetBytes "config/app.ini" | len }}`),
		tpl("templates/missing", `{{ .Files.Get "nope" }}|{{ len (.Files.Glob "nope/*") }}`),
	)
	c.Files = []*chart.File{
		{Name: "config/app.ini", Data: []byte("[app]\nx=1\n")},
		{Name: "config/list.txt", Data: []byte("a\nb\n")},
	}
	out, err := engine.Engine{}.Render(c, topValues(M{}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"files/templates/get":     "[app]\nx=1\n",
		"files/templates/glob":    "app.ini: |\n  [app]\n  x=1\nlist.txt: |\n  a\n  b",
		"files/templates/secrets": "app.ini: W2FwcF0KeD0xCg==",
		"files/templates/lines":   "[a][b]",
		"files/templates/bytes":   "10",
		"files/templates/missing": "|0",
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("Render =\n%q\nwant\n%q", out, want)
	}
}

func TestRenderConcurrently(t *testing.T) {
	e := engine.Engine{}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := fmt.Sprintf("expect-%d", i)
			c := newChart("c", tpl("templates/t", `{{.Values.val}}`), tpl("templates/_h", `{{ define "h" }}{{ end }}`))
			out, err := e.Render(c, topValues(M{"val": want}))
			if err != nil {
				t.Errorf("render %d: %v", i, err)
				return
			}
			if out["c/templates/t"] != want {
				t.Errorf("render %d = %q, want %q", i, out["c/templates/t"], want)
			}
		}()
	}
	wg.Wait()
}
