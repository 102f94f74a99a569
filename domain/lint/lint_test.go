package lint_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/create"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/lint"
)

func request(t *testing.T, files map[string]string, kube string) lint.Request {
	t.Helper()
	var bf []*loader.BufferedFile
	req := lint.Request{Dir: "/charts/demo", Dialect: dialect.Helm3}
	for name, body := range files {
		bf = append(bf, &loader.BufferedFile{Name: name, Data: []byte(body)})
		switch name {
		case "Chart.yaml":
			req.ChartYAML = []byte(body)
		case "values.yaml":
			req.ValuesYAML = []byte(body)
		case "values.schema.json":
			req.ValuesSchema = []byte(body)
		}
		req.CRDs = req.CRDs || strings.HasPrefix(name, "crds/")
	}
	c, err := loader.LoadFiles(bf, loader.DefaultLimits())
	if err != nil {
		req.LoadErr = err
	} else {
		req.Chart = c
	}
	req.Capabilities = capabilities.Default("go")
	if kube != "" {
		kv, err := capabilities.ParseKubeVersion(kube)
		if err != nil {
			t.Fatal(err)
		}
		req.Capabilities.KubeVersion = *kv
	}
	return req
}

const chartYAML = "apiVersion: v2\nname: demo\nversion: 1.0.0\nicon: https://example.com/icon.png\n"

func TestScaffoldIsClean(t *testing.T) {
	for _, d := range []dialect.Dialect{dialect.Helm3, dialect.Helm4} {
		t.Run(string(d), func(t *testing.T) {
			files, err := create.Scaffold("demo", d, "")
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]string{}
			for _, f := range files {
				m[f.Name] = string(f.Data)
			}
			res := lint.Lint(context.Background(), request(t, m, ""))
			if res.Failed(true) {
				t.Errorf("fresh chart fails lint --strict: %v", res.Findings)
			}
		})
	}
}

// TestNotes: required and fail in lint mode are logged apart from the findings, as
// Helm logs them on stderr.
func TestNotes(t *testing.T) {
	req := request(t, map[string]string{"Chart.yaml": chartYAML, "templates/a.yaml": "{{ fail \"set image\" }}\n{{ required \"need x\" .Values.x }}\n"}, "")
	var notes []string
	req.Warn = func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	res := lint.Lint(context.Background(), req)
	want := []string{"[INFO] Fail: set image", "[INFO] Missing required value: need x"}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes %q, want %q", notes, want)
	}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.String(), "[INFO] templates/") {
			t.Errorf("a note among the findings: %s", f)
		}
	}
}

func TestFindings(t *testing.T) {
	tests := map[string]struct {
		files  map[string]string
		kube   string
		compat dialect.Dialect
		want   string // the String() of one finding
	}{
		"version not semver": {files: map[string]string{"Chart.yaml": "apiVersion: v2\nname: demo\nversion: one\n"},
			want: "[ERROR] : unable to load chart"},
		"version as number": {files: map[string]string{"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0\n", "templates/a.yaml": ""},
			want: "[ERROR] Chart.yaml: version should be of type string"},
		"bad apiVersion": {files: map[string]string{"Chart.yaml": "apiVersion: v3\nname: demo\nversion: 1.0.0\n"},
			want: "[ERROR] Chart.yaml: apiVersion 'v3' is not valid"},
		"bad maintainer email": {files: map[string]string{"Chart.yaml": chartYAML + "maintainers:\n- name: a\n  email: nope\n", "templates/a.yaml": ""},
			want: "[ERROR] Chart.yaml: invalid email 'nope'"},
		"maintainer email without a dotted domain": {files: map[string]string{"Chart.yaml": chartYAML + "maintainers:\n- name: a\n  email: a@b\n", "templates/a.yaml": ""},
			want: "[ERROR] Chart.yaml: invalid email 'a@b' for maintainer 'a'"},
		"maintainer url with a space": {files: map[string]string{"Chart.yaml": chartYAML + "maintainers:\n- name: a\n  url: https://example.com/a b\n", "templates/a.yaml": ""},
			want: "[ERROR] Chart.yaml: invalid url 'https://example.com/a b' for maintainer 'a'"},
		"icon missing": {files: map[string]string{"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n", "templates/a.yaml": ""},
			want: "[INFO] Chart.yaml: icon is recommended"},
		"values broken": {files: map[string]string{"Chart.yaml": chartYAML, "values.yaml": "a: [\n", "templates/a.yaml": ""},
			want: "[ERROR] values.yaml"},
		"subchart not listed, apiVersion v1": {files: map[string]string{"Chart.yaml": "apiVersion: v1\nname: demo\nversion: 1.0.0\n", "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n"},
			want: "[ERROR] /charts/demo: chart metadata is missing these dependencies: sub"},
		"template error, helm3": {files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yaml": "a: 1\nb: {{ .Values.x.y }}\n"},
			want: "[ERROR] templates/: template: demo/templates/cm.yaml:2:13:"},
		"template error, helm4": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yaml": "a: 1\nb: {{ .Values.x.y }}\n"},
			want: "[ERROR] templates/: demo/templates/cm.yaml:2:13\n  executing"},
		"version not SemVerV2, helm4": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": "apiVersion: v2\nname: demo\nversion: v1.2.3\n"},
			want: "[WARNING] Chart.yaml: version 'v1.2.3' is not a valid SemVerV2"},
		"unknown Chart.yaml field, helm4": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": chartYAML + "foo: bar\n"},
			want: "[WARNING] Chart.yaml: failed to strictly parse chart metadata file"},
		"schema violation names values.yaml and templates/": {files: map[string]string{"Chart.yaml": chartYAML, "values.yaml": "port: high\n", "values.schema.json": `{"type":"object","properties":{"port":{"type":"integer"}}}`, "templates/a.yaml": ""},
			want: "[ERROR] templates/: values don't meet the specifications"},
		"rendered yaml invalid": {files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: [\n"},
			want: "[ERROR] templates/"},
		"no kind, no name: only the name warns": {files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yaml": "apiVersion: v1\nfoo: bar\n"},
			want: `[WARNING] templates/cm.yaml: object name does not conform to Kubernetes naming requirements: "": metadata.name: Invalid value: ""`},
		"rendered document does not parse": {files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yaml": "a: b\nc\n"},
			want: "[ERROR] templates/cm.yaml: unable to parse YAML: error converting YAML to JSON: yaml: line 3: could not find expected ':'"},
		".yml documents, helm4": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yml": "kind: Service\nmetadata:\n  name: 1a\n"},
			want: `[WARNING] templates/cm.yml: object name does not conform to Kubernetes naming requirements: "1a"`},
		"Chart.yaml type error names Helm 4's types": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": chartYAML + "maintainers: someone\n"},
			want: "[ERROR] Chart.yaml: unable to parse YAML\n\terror unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Metadata.maintainers of type []*v2.Maintainer"},
		"Chart.yaml type error names Helm 3's types": {files: map[string]string{"Chart.yaml": chartYAML + "maintainers: someone\n"},
			want: "[ERROR] Chart.yaml: unable to parse YAML\n\terror unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Metadata.maintainers of type []*chart.Maintainer"},
		"crds/ of a chart that does not load, helm4": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": "apiVersion: v2\nname: demo\n", "crds/a.yaml": "kind: X\n"},
			want: "[ERROR] crds/: validation: chart.metadata.version is required"},
		"crds/ holding another kind, helm4": {compat: dialect.Helm4, files: map[string]string{"Chart.yaml": chartYAML, "crds/a.yaml": "apiVersion: v1\nkind: ConfigMap\n"},
			want: "[ERROR] crds/a.yaml: apiVersion is not in 'apiextensions.k8s.io'"},
		"bad object name": {files: map[string]string{"Chart.yaml": chartYAML, "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n"},
			want: "[WARNING] templates/cm.yaml: object name does not conform"},
		"comment-only document": {files: map[string]string{"Chart.yaml": chartYAML, "templates/a.yaml": "{{- if false }}\napiVersion: v1\n{{- end }}\n# nothing\n---\n# still nothing\n"},
			want: "[INFO] values.yaml"},
		"crd-install hook": {files: map[string]string{"Chart.yaml": chartYAML, "templates/crd.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    helm.sh/hook: crd-install\n"},
			want: "[WARNING] templates/crd.yaml: manifest is a crd-install hook"},
		"deprecated api": {kube: "1.21.0", files: map[string]string{"Chart.yaml": chartYAML, "templates/pdb.yaml": "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: a\n"},
			want: "[WARNING] templates/pdb.yaml: policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget"},
		"removed api only warns": {kube: "1.30.0", files: map[string]string{"Chart.yaml": chartYAML, "templates/pdb.yaml": "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: a\n"},
			want: "[WARNING] templates/pdb.yaml: policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+"},
		"selector missing": {files: map[string]string{"Chart.yaml": chartYAML, "templates/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec: {}\n"},
			want: "[ERROR] templates/d.yaml: a Deployment must contain matchLabels or matchExpressions"},
		"bad extension": {files: map[string]string{"Chart.yaml": chartYAML, "templates/x.json": "{}"},
			want: "[ERROR] templates/x.json: file extension '.json' not valid"},
		"release time": {files: map[string]string{"Chart.yaml": chartYAML, "templates/a.yaml": "# {{ .Release.Time }}\n"},
			want: "[ERROR] templates/a.yaml: .Release.Time has been removed"},
		"schema violation": {files: map[string]string{"Chart.yaml": chartYAML, "values.yaml": "port: high\n", "values.schema.json": `{"type":"object","properties":{"port":{"type":"integer"}}}`, "templates/a.yaml": ""},
			want: "[ERROR] values.yaml"},
		"a null default the render drops twice coalesced, as Helm's lint": {files: map[string]string{"Chart.yaml": chartYAML, "values.yaml": "str: null\n", "values.schema.json": `{"type":"object","required":["str"]}`, "templates/a.yaml": ""},
			want: "[ERROR] templates/: values don't meet the specifications of the schema(s) in the following chart(s):\ndemo:\n- at '': missing property 'str'"},
		"missing dependency": {files: map[string]string{"Chart.yaml": chartYAML + "dependencies:\n- name: sub\n  version: 1.0.0\n  repository: https://example.com\n", "templates/a.yaml": ""},
			want: "[WARNING] /charts/demo: chart directory is missing these dependencies: sub"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req := request(t, tc.files, tc.kube)
			if tc.compat != dialect.Unset {
				req.Dialect = tc.compat
			}
			res := lint.Lint(context.Background(), req)
			var all []string
			for _, f := range res.Findings {
				all = append(all, f.String())
				if strings.HasPrefix(f.String(), tc.want) {
					return
				}
			}
			t.Errorf("no finding starting with %q in:\n%s", tc.want, strings.Join(all, "\n"))
		})
	}
}

// --skip-schema-validation: the render skips the schemas in both dialects; Helm 3's
// values rule still checks values.yaml against its schema, Helm 4's does not.
func TestSkipSchemaValidation(t *testing.T) {
	files := map[string]string{"Chart.yaml": chartYAML, "values.yaml": "port: high\n", "values.schema.json": `{"type":"object","properties":{"port":{"type":"integer"}}}`, "templates/a.yaml": ""}
	for d, want := range map[dialect.Dialect]int{dialect.Helm3: 1, dialect.Helm4: 0} {
		req := request(t, files, "")
		req.Dialect, req.SkipSchemaValidation = d, true
		var errs []string
		for _, f := range lint.Lint(context.Background(), req).Findings {
			if f.Severity == lint.Error {
				errs = append(errs, f.String())
			}
		}
		if len(errs) != want || want == 1 && !strings.HasPrefix(errs[0], "[ERROR] values.yaml: ") {
			t.Errorf("%s: errors %q, want %d on values.yaml", d, errs, want)
		}
	}
}

func TestLintModeAndEmptyDocumentsPass(t *testing.T) {
	for name, tpl := range map[string]string{
		"comment-only":                 "# nothing here\n---\n# nor here\n",
		"fail and required":            "{{ fail \"set image\" }}\n{{ required \"need x\" .Values.x }}\n",
		"removed api without a target": "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: a\n",
	} {
		t.Run(name, func(t *testing.T) {
			res := lint.Lint(context.Background(), request(t, map[string]string{"Chart.yaml": chartYAML, "values.yaml": "{}\n", "templates/a.yaml": tpl}, ""))
			if res.Failed(false) {
				t.Errorf("fails: %v", res.Findings)
			}
		})
	}
}

// As Helm v3.22: a chart without templates/ is clean; a templates/ that is
// not a directory is a warning.
func TestTemplatesDirectory(t *testing.T) {
	files := map[string]string{"Chart.yaml": chartYAML, "values.yaml": ""}
	res := lint.Lint(context.Background(), request(t, files, ""))
	if res.Failed(true) || len(res.Findings) != 0 {
		t.Errorf("a chart without templates/: %v", res.Findings)
	}
	req := request(t, files, "")
	req.TemplatesNotDir = true
	res = lint.Lint(context.Background(), req)
	if len(res.Findings) != 1 || res.Findings[0].String() != "[WARNING] templates/: not a directory" {
		t.Errorf("templates/ as a file: %v", res.Findings)
	}
}
