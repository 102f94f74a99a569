package manifest_test

import (
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
)

// Helm 4 keeps each document's trailing whitespace (the "|+" block scalar's
// final line breaks) and names its head type util.SimpleHead in errors (the
// conformance corpus's helm-frobnitz case has both texts).
func TestSortForDialect(t *testing.T) {
	files := map[string]string{
		"c/templates/a.yaml": "kind: ConfigMap\ndata:\n  k: |+\n    keep\n\n\n---\n---\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    helm.sh/hook: test\n\n",
	}
	tests := map[string]struct {
		d        dialect.Dialect
		manifest string
		hook     string
	}{
		"helm4": {d: dialect.Helm4, manifest: "kind: ConfigMap\ndata:\n  k: |+\n    keep\n\n\n", hook: "kind: Pod\nmetadata:\n  name: p\n  annotations:\n    helm.sh/hook: test\n\n"},
		"helm3": {d: dialect.Helm3, manifest: "kind: ConfigMap\ndata:\n  k: |+\n    keep", hook: "---\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    helm.sh/hook: test"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			hooks, ms, err := manifest.SortFor(tc.d, files, manifest.InstallOrderFor(tc.d), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 1 || ms[0].Content != tc.manifest {
				t.Errorf("manifests = %+v, want content %q", ms, tc.manifest)
			}
			if len(hooks) != 1 || hooks[0].Manifest != tc.hook {
				t.Errorf("hooks = %+v, want manifest %q", hooks, tc.hook)
			}
		})
	}
}

func TestParseErrorByDialect(t *testing.T) {
	files := map[string]string{"frobnitz/templates/template.tpl": "just text"}
	want := map[dialect.Dialect]string{
		dialect.Helm3: "YAML parse error on frobnitz/templates/template.tpl: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type releaseutil.SimpleHead",
		dialect.Helm4: "YAML parse error on frobnitz/templates/template.tpl: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type util.SimpleHead",
	}
	got := map[dialect.Dialect]string{}
	for d := range want {
		_, _, err := manifest.SortFor(d, files, manifest.InstallOrder, nil)
		if err == nil {
			t.Fatalf("%s: no error", d)
		}
		got[d] = err.Error()
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors = %q, want %q", got, want)
	}
}
