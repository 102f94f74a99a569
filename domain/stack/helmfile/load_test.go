package helmfile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

func load(t *testing.T, files map[string]string, opts Options) (stack.Stack, error) {
	t.Helper()
	h := newMemHost(files)
	h.env["GREETING"] = "hi"
	return Loader{Host: h}.Load(context.Background(), "helmfile.yaml.gotmpl", opts)
}

func TestLoadResolves(t *testing.T) {
	files := map[string]string{
		"helmfile.yaml.gotmpl": `environments:
  default:
    values:
    - env/default.yaml
    - size: 2
  prod:
    kubeContext: prod-ctx
    values:
    - env/prod.yaml.gotmpl
---
helmDefaults:
  wait: true
  timeout: 120
repositories:
- name: stable
  url: https://127.0.0.1/charts
- name: reg
  url: 127.0.0.1:5000/charts
  oci: true
releases:
- name: db
  namespace: data
  chart: ./charts/db
  values:
  - values/db.yaml.gotmpl
  - size: {{ .Values.size }}
  set:
  - name: a.b
    value: x,y
  setString:
  - name: s
    value: "1"
- name: web
  namespace: app
  chart: stable/web
  version: 1.2.3
  needs: [data/db]
  labels: {tier: front}
  installed: {{ eq .Environment.Name "default" }}
  wait: false
- name: img
  namespace: app
  chart: reg/img
  needs: [/app/web]
  kubeContext: other
  greeting: nope
`,
		"env/default.yaml":      "size: 1\nname: dflt\n",
		"env/prod.yaml.gotmpl":  "size: 9\nname: {{ .Environment.Name }}\n",
		"values/db.yaml.gotmpl": "release: {{ .Release.Name }}/{{ .Release.Namespace }}\nenv: {{ .Values.name }}\n",
		"charts/db/Chart.yaml":  "name: db\n",
	}
	files["helmfile.yaml.gotmpl"] = strings.Replace(files["helmfile.yaml.gotmpl"], "  greeting: nope\n", "", 1)
	st, err := load(t, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Releases) != 3 {
		t.Fatalf("releases = %d, want 3", len(st.Releases))
	}
	db, web, img := st.Releases[0], st.Releases[1], st.Releases[2]
	if db.Chart != "./charts/db" || !IsLocalChart(db.Chart) || db.ChartAsWritten != "charts/db" {
		t.Errorf("db chart = %q (%q)", db.Chart, db.ChartAsWritten)
	}
	if got := string(db.Values[0]); got != "release: db/data\nenv: dflt\n" {
		t.Errorf("db values[0] = %q", got)
	}
	if got := string(db.Values[1]); got != "size: 2\n" {
		t.Errorf("db values[1] = %q", got)
	}
	if len(db.Set) != 1 || db.Set[0] != (stack.SetValue{Name: "a.b", Value: `x\,y`}) {
		t.Errorf("db set = %v", db.Set)
	}
	if !db.Wait || db.Timeout != 120*time.Second || !db.Installed {
		t.Errorf("db defaults: wait %v timeout %v installed %v", db.Wait, db.Timeout, db.Installed)
	}
	if web.Chart != "stable/web" || web.Version != "1.2.3" || web.Wait || !web.Installed {
		t.Errorf("web = %+v", web)
	}
	if len(web.Needs) != 1 || web.Needs[0] != (stack.ID{Namespace: "data", Name: "db"}) {
		t.Errorf("web needs = %v", web.Needs)
	}
	if img.Chart != "oci://127.0.0.1:5000/charts/img" || img.ID.KubeContext != "other" {
		t.Errorf("img = %+v", img.ID)
	}
	// A need naming a context (here none: "/ns/name") is not given the needing release's.
	if len(img.Needs) != 1 || img.Needs[0] != (stack.ID{Namespace: "app", Name: "web"}) {
		t.Errorf("img needs = %v", img.Needs)
	}

	// -e prod: the environment's values and context; installed follows them.
	files["helmfile.yaml.gotmpl"] = strings.Replace(files["helmfile.yaml.gotmpl"], "needs: [/app/web]", "needs: [prod-ctx/app/web]", 1)
	st, err = load(t, files, Options{Environment: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Environment != "prod" || st.Releases[0].ID.KubeContext != "prod-ctx" || st.Releases[1].Installed {
		t.Errorf("prod: %+v", st.Releases[:2])
	}
	if got := string(st.Releases[0].Values[0]); got != "release: db/data\nenv: prod\n" {
		t.Errorf("prod db values[0] = %q", got)
	}
}

func TestLoadRefuses(t *testing.T) {
	base := func(releases string) map[string]string {
		return map[string]string{"helmfile.yaml.gotmpl": "releases:\n" + releases, "charts/c/Chart.yaml": "name: c\n"}
	}
	tests := map[string]struct {
		files map[string]string
		opts  Options
		want  string
		is    error
	}{
		"cycle in needs": {
			files: base("- {name: a, namespace: n, chart: ./charts/c, needs: [b]}\n- {name: b, namespace: n, chart: ./charts/c, needs: [c]}\n- {name: c, namespace: n, chart: ./charts/c, needs: [a]}\n"),
			want:  "cycle in needs: n/a -> n/b -> n/c -> n/a",
		},
		"need of no release": {
			files: base("- {name: a, namespace: n, chart: ./charts/c, needs: [other/b]}\n"),
			want:  `helmfile.yaml.gotmpl:2: release "n/a" needs "other/b", which is not a release of the stack`,
		},
		"duplicate release": {
			files: base("- {name: a, namespace: n, chart: ./charts/c}\n- {name: a, namespace: n, chart: ./charts/c}\n"),
			want:  `helmfile.yaml.gotmpl:3: duplicate release "n/a": already declared at helmfile.yaml.gotmpl:2`,
		},
		"unknown environment": {
			files: map[string]string{"helmfile.yaml.gotmpl": "environments:\n  prod: {}\n---\nreleases: []\n"},
			opts:  Options{Environment: "staging"},
			is:    ErrUnknownEnvironment,
			want:  `environment "staging"`,
		},
		"environment in a file without environments": {
			files: base("- {name: a, chart: ./charts/c}\n"),
			opts:  Options{Environment: "staging"},
			is:    ErrUnknownEnvironment,
		},
		"unknown key": {
			files: base("- name: a\n  chart: ./charts/c\n  bogus: 1\n"),
			want:  `helmfile.yaml.gotmpl:4: releases[0]: unknown key "bogus"`,
		},
		"unsupported key": {
			files: map[string]string{"helmfile.yaml.gotmpl": "releases: []\n---\nhelmDefaults:\n  atomic: true\n"},
			want:  `helmfile.yaml.gotmpl:4: helmDefaults: helmfile's key "atomic" is not supported by kubectl chart stack`,
		},
		"unsupported function": {
			files: map[string]string{"helmfile.yaml.gotmpl": "releases: []\n---\n# x\nvalues: [{{ fetchSecretValue \"ref+vault://x\" }}]\n"},
			want:  `helmfile.yaml.gotmpl:4: template: stringTemplate:2: function "fetchSecretValue" not defined`,
		},
		"template error": {
			files: map[string]string{"helmfile.yaml.gotmpl": "environments:\n  default: {}\n---\nreleases:\n- name: {{ .Values.missing }}\n"},
			want:  `helmfile.yaml.gotmpl:5: template: stringTemplate:2:18: executing "stringTemplate" at <.Values.missing>: map has no entry for key "missing"`,
		},
		"missing values file": {
			files: base("- name: a\n  chart: ./charts/c\n  values: [nothere.yaml]\n"),
			want:  `values file matching "nothere.yaml" does not exist in "."`,
		},
		"missing environment values file": {
			files: map[string]string{"helmfile.yaml.gotmpl": "environments:\n  default:\n    values: [env.yaml]\n"},
			want:  `environment values file matching "env.yaml" does not exist in "."`,
		},
		"bad missingFileHandler": {
			files: base("- name: a\n  chart: ./charts/c\n  missingFileHandler: Maybe\n  values: [nothere.yaml]\n"),
			want:  `invalid missing file handler "Maybe"`,
		},
		"exec without --allow-exec": {
			files: map[string]string{"helmfile.yaml.gotmpl": `releases: [{name: {{ exec "echo" (list "a") }}, chart: ./c}]`},
			is:    ErrExecNotAllowed,
		},
		"malformed selector": {
			files: base("- {name: a, chart: ./charts/c}\n"),
			opts:  Options{Selectors: []string{"tier"}},
			want:  "malformed label: tier. Expected label in form k=v or k!=v",
		},
		"nested bases": {
			files: map[string]string{"helmfile.yaml.gotmpl": "bases: [b.yaml]\n", "b.yaml": "bases: [c.yaml]\n"},
			want:  "nested `base` helmfile is unsupported",
		},
		"release without chart": {
			files: base("- {name: a}\n"),
			want:  `helmfile.yaml.gotmpl:2: release "a" has no chart`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, tc.files, tc.opts)
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n  %v\nwant it to contain:\n  %s", err, tc.want)
			}
		})
	}
}

func TestMissingFileHandlers(t *testing.T) {
	for name, want := range map[string]string{
		"Warn":  `skipping missing values file matching "nothere.yaml"`,
		"Info":  `skipping missing values file matching "nothere.yaml"`,
		"Debug": "",
	} {
		t.Run(name, func(t *testing.T) {
			var logged []string
			st, err := load(t, map[string]string{
				"helmfile.yaml.gotmpl": "releases:\n- name: a\n  chart: ./c\n  missingFileHandler: " + name + "\n  values: [nothere.yaml, {a: 1}]\n",
			}, Options{Log: func(m string) { logged = append(logged, m) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Releases[0].Values) != 1 {
				t.Errorf("values = %q, want the inline one only", st.Releases[0].Values)
			}
			if got := strings.Join(logged, "\n"); got != want {
				t.Errorf("logged %q, want %q", got, want)
			}
		})
	}
}

func TestSelectors(t *testing.T) {
	files := map[string]string{"helmfile.yaml.gotmpl": `releases:
- {name: db, namespace: data, chart: ./charts/db, labels: {tier: data}}
- {name: api, namespace: app, chart: ./charts/api, labels: {tier: back}, needs: [data/db]}
- {name: web, namespace: app, chart: stable/web, labels: {tier: front}, needs: [api]}
`}
	tests := map[string]struct {
		selectors    []string
		includeNeeds bool
		want         string
	}{
		"none selects all":          {want: "db api web"},
		"one label":                 {selectors: []string{"tier=front"}, want: "web"},
		"several -l are or":         {selectors: []string{"tier=front", "name=db"}, want: "db web"},
		"commas are and":            {selectors: []string{"namespace=app,tier!=front"}, want: "api"},
		"chart is its last element": {selectors: []string{"chart=web"}, want: "web"},
		"needs only when asked":     {selectors: []string{"name=web"}, includeNeeds: true, want: "db api web"},
		"negative of a missing key": {selectors: []string{"team!=x"}, want: "db api web"},
		"nothing matches":           {selectors: []string{"tier=none"}, want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, err := load(t, files, Options{Selectors: tc.selectors, IncludeNeeds: tc.includeNeeds})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(st); got != tc.want {
				t.Errorf("selected %q, want %q", got, tc.want)
			}
		})
	}
}

// names are the names of the stack's releases, in order.
func names(st stack.Stack) string {
	var got []string
	for _, r := range st.Releases {
		got = append(got, r.ID.Name)
	}
	return strings.Join(got, " ")
}

func TestWavesKeepFileOrder(t *testing.T) {
	id := func(n string) stack.ID { return stack.ID{Namespace: "n", Name: n} }
	rels := []stack.Release{
		{ID: id("z"), Needs: []stack.ID{id("b")}},
		{ID: id("b")},
		{ID: id("a")},
		{ID: id("y"), Needs: []stack.ID{id("z")}},
	}
	setWaves(rels)
	var got []string
	for _, w := range Waves(rels) {
		var names []string
		for _, r := range w {
			names = append(names, r.ID.Name)
		}
		got = append(got, strings.Join(names, ","))
	}
	if strings.Join(got, " | ") != "b,a | z | y" {
		t.Errorf("waves = %v", got)
	}
}

func TestFunctions(t *testing.T) {
	files := map[string]string{
		"helmfile.yaml.gotmpl": `{{ $m := dict "a" (dict "b" 1) }}
{{- $m = setValueAtPath "a.c" 2 $m }}
releases:
- name: r
  chart: ./c
  values:
  - env: {{ env "GREETING" }}
    required: {{ requiredEnv "GREETING" }}
    file: {{ readFile "data.txt" | trim }}
    isFile: {{ isFile "data.txt" }}
    isDir: {{ isFile "sub" }}
    dir: {{ readDir "sub" | join "," }}
    yaml: {{ fromYaml "x: [1, 2]" | toYaml | trim | quote }}
    get: {{ get "a.b" $m }}
    getDefault: {{ get "a.x" "d" $m }}
    getOrNil: {{ getOrNil "a.x" $m | toString }}
    set: {{ get "a.c" $m }}
    tpl: {{ tpl "{{ .n }}" (dict "n" 5) }}
    required2: {{ required "need it" "ok" }}
`,
		"data.txt": "content\n",
		"sub/one":  "1",
		"sub/two":  "2",
	}
	st, err := load(t, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `dir: sub/one,sub/two
env: hi
file: content
get: 1
getDefault: d
getOrNil: <nil>
isDir: false
isFile: true
required: hi
required2: ok
set: 2
tpl: 5
yaml: |-
  x:
    - 1
    - 2
`
	if got := string(st.Releases[0].Values[0]); got != want {
		t.Errorf("values:\n%s\nwant:\n%s", got, want)
	}
	files["helmfile.yaml.gotmpl"] = `releases: [{name: {{ exec "echo" (list "a") | replace " " "-" }}, chart: ./c}]`
	st, err = load(t, files, Options{AllowExec: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Releases[0].ID.Name != "echo-a" {
		t.Errorf("exec: name = %q", st.Releases[0].ID.Name)
	}
}

// A need on a release the file does not install is recorded on the needing
// release even when the release needed is not selected (helmfile warns of it
// as it renders the needing release), and noted for the file.
func TestNeedsUninstalledOverUnselected(t *testing.T) {
	files := map[string]string{"helmfile.yaml.gotmpl": `releases:
- {name: db, namespace: data, chart: ./charts/db, installed: false}
- {name: api, namespace: app, chart: ./charts/api, labels: {tier: back}, needs: [data/db]}
`}
	st, err := load(t, files, Options{Selectors: []string{"tier=back"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Releases) != 1 || len(st.Releases[0].NeedsUninstalled) != 1 || st.Releases[0].NeedsUninstalled[0] != (stack.ID{Namespace: "data", Name: "db"}) {
		t.Fatalf("releases = %+v, want api needing the uninstalled data/db", st.Releases)
	}
	if want := (stack.Note{Text: UninstalledNeedWarning("api", "db")}); len(st.Notes) != 1 || st.Notes[0] != want {
		t.Errorf("notes %+v, want the warning once, for the file", st.Notes)
	}
}

// The state's own values sit under the environment's: .Values has both,
// .Environment.Values only the environment's; conditions read .Values.
func TestStateValuesUnderEnvironment(t *testing.T) {
	files := map[string]string{
		"helmfile.yaml.gotmpl": `values:
- state/common.yaml
- color: state
environments:
  default:
    values:
    - color: env
---
releases:
- name: app
  namespace: n
  chart: ./charts/app
  condition: feature.enabled
  values:
  - color: {{ .Values.color }}
    team: {{ .Values.team }}
    envTeam: {{ .Environment.Values | get "team" "none" }}
`,
		"state/common.yaml": "team: core\nfeature:\n  enabled: true\n",
	}
	st, err := load(t, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Releases) != 1 {
		t.Fatalf("releases = %+v, want app (its condition is in the state values)", st.Releases)
	}
	if got, want := string(st.Releases[0].Values[0]), "color: env\nenvTeam: none\nteam: core\n"; got != want {
		t.Errorf("values = %q, want %q", got, want)
	}
}

// A release whose condition is false is never selected by itself, yet needs
// may name it, and --include-needs takes it as helmfile does.
func TestConditionDisabledKeepsItsPlace(t *testing.T) {
	files := map[string]string{"helmfile.yaml.gotmpl": `releases:
- {name: db, namespace: data, chart: ./charts/db, condition: "false", labels: {tier: data}}
- {name: api, namespace: app, chart: ./charts/api, labels: {tier: back}, needs: [data/db]}
`}
	tests := map[string]struct {
		selectors    []string
		includeNeeds bool
		want         string
	}{
		"no selector":             {want: "api"},
		"selected by label":       {selectors: []string{"tier=data"}, want: ""},
		"needed, not included":    {selectors: []string{"tier=back"}, want: "api"},
		"needed with its needs":   {selectors: []string{"tier=back"}, includeNeeds: true, want: "db api"},
		"negative selector skips": {selectors: []string{"tier!=x"}, want: "api"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, err := load(t, files, Options{Selectors: tc.selectors, IncludeNeeds: tc.includeNeeds})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(st); got != tc.want {
				t.Errorf("selected %q, want %q", got, tc.want)
			}
			for _, r := range st.Releases {
				if r.ID.Name == "api" && r.Wave != 1 {
					t.Errorf("api wave = %d, want 1 (after the disabled db)", r.Wave)
				}
			}
		})
	}
}

// Sub-helmfiles are groups of their own, numbered before the file naming them.
func TestSubHelmfilesComeFirst(t *testing.T) {
	files := map[string]string{
		"helmfile.yaml.gotmpl": "helmfiles:\n- sub/helmfile.yaml\nreleases:\n- {name: top, namespace: n, chart: ./charts/a}\n",
		"sub/helmfile.yaml":    "releases:\n- {name: inner, namespace: n, chart: ./charts/a}\n",
	}
	st, err := load(t, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range st.Releases {
		got = append(got, fmt.Sprintf("%s:%d", r.ID.Name, r.Group))
	}
	if strings.Join(got, " ") != "inner:0 top:1" {
		t.Errorf("releases = %v, want inner:0 top:1", got)
	}
}
