package show_test

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
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
			got, err := show.Text(c, f)
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
	if got, _ := show.Text(&chart.Chart{Metadata: &chart.Metadata{Name: "x"}}, show.All); !strings.HasPrefix(got, "name: x") {
		t.Errorf("chart without values: %q", got)
	}
}
