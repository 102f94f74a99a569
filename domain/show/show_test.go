package show_test

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/show"
)

func TestText(t *testing.T) {
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "1.0.0"},
		Raw:      []*chart.File{{Name: "values.yaml", Data: []byte("a: 1\n")}},
		Values:   map[string]any{"a": 1},
		Files: []*chart.File{
			{Name: "docs/README.md", Data: []byte("not me")},
			{Name: "ReadMe.MD", Data: []byte("# demo")},
			{Name: "crds/w.yaml", Data: []byte("kind: CustomResourceDefinition")},
		},
	}
	tests := map[show.Format]string{
		show.Chart:  "apiVersion: v2\nname: demo\nversion: 1.0.0\n\n",
		show.Values: "a: 1\n\n",
		show.Readme: "# demo\n",
		show.CRDs:   "kind: CustomResourceDefinition\n",
		show.All:    "apiVersion: v2\nname: demo\nversion: 1.0.0\n\n---\na: 1\n\n---\n# demo\n---\nkind: CustomResourceDefinition\n",
	}
	for f, want := range tests {
		t.Run(string(f), func(t *testing.T) {
			got, err := show.Text(c, f, dialect.Helm3)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	if r := show.FindReadme(nil); r != nil {
		t.Error("no files: want no README")
	}
	if got, _ := show.Text(&chart.Chart{Metadata: &chart.Metadata{Name: "x"}}, show.All, dialect.Helm3); !strings.HasPrefix(got, "name: x") {
		t.Errorf("chart without values: %q", got)
	}
}

// Helm 4 puts "---" before every CRD that lacks one (as Helm v4.3.1's show crds prints).
func TestTextHelm4CRDs(t *testing.T) {
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "1.0.0"},
		Files: []*chart.File{
			{Name: "crds/a.yaml", Data: []byte("kind: A\n")},
			{Name: "crds/b.yaml", Data: []byte("---\nkind: B\n")},
		},
	}
	tests := map[string]struct {
		f    show.Format
		d    dialect.Dialect
		want string
	}{
		"helm4 crds": {show.CRDs, dialect.Helm4, "---\nkind: A\n\n---\nkind: B\n\n"},
		"helm4 all":  {show.All, dialect.Helm4, "apiVersion: v2\nname: demo\nversion: 1.0.0\n\n---\nkind: A\n\n---\nkind: B\n\n"},
		"helm3 crds": {show.CRDs, dialect.Helm3, "kind: A\n\n---\nkind: B\n\n"},
		"helm3 all":  {show.All, dialect.Helm3, "apiVersion: v2\nname: demo\nversion: 1.0.0\n\n---\nkind: A\n\n---\nkind: B\n\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := show.Text(c, tc.f, tc.d)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
