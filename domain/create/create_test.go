package create_test

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/create"
)

func TestScaffold(t *testing.T) {
	files, err := create.Scaffold("web")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = true
		if strings.Contains(string(f.Data), create.Placeholder) {
			t.Errorf("%s still holds the placeholder", f.Name)
		}
	}
	for _, want := range []string{"Chart.yaml", "values.yaml", "values.schema.json", ".helmignore", "templates/_helpers.tpl",
		"templates/deployment.yaml", "templates/service.yaml", "templates/ingress.yaml", "templates/hpa.yaml",
		"templates/serviceaccount.yaml", "templates/NOTES.txt", "templates/tests/test-connection.yaml"} {
		if !names[want] {
			t.Errorf("scaffold lacks %s", want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "../x", "a b", "ünï"} {
		if _, err := create.Scaffold(bad); err == nil {
			t.Errorf("Scaffold(%q) accepted", bad)
		}
	}
	if _, err := create.FromStarter("ok", []create.File{{Name: "../../evil"}}); err == nil {
		t.Error("starter file outside the chart accepted")
	}
	got, err := create.FromStarter("ok", []create.File{{Name: "Chart.yaml", Data: []byte("name: <CHARTNAME>\n")}})
	if err != nil || string(got[0].Data) != "name: ok\n" {
		t.Errorf("starter: %v %v", got, err)
	}
}
