package create_test

import (
	"cmp"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/create"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

func TestScaffold(t *testing.T) {
	tests := map[string]struct {
		dialect    dialect.Dialect
		apiVersion string
		wantErr    string
	}{
		"helm3":                   {dialect: dialect.Helm3},
		"helm4":                   {dialect: dialect.Helm4},
		"helm4 chart API v2":      {dialect: dialect.Helm4, apiVersion: create.APIVersionV2},
		"helm4 chart API v3":      {dialect: dialect.Helm4, apiVersion: create.APIVersionV3},
		"helm3 chart API v3":      {dialect: dialect.Helm3, apiVersion: create.APIVersionV3, wantErr: "chart API version v3 needs Helm 4's dialect"},
		"unsupported API version": {dialect: dialect.Helm4, apiVersion: "v4", wantErr: "unsupported chart API version: v4 (supported: v2, v3)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			files, err := create.Scaffold("web", tc.dialect, tc.apiVersion)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, f := range files {
				names[f.Name] = true
				if strings.Contains(string(f.Data), create.Placeholder) {
					t.Errorf("%s still holds the placeholder", f.Name)
				}
				if f.Name == "Chart.yaml" && !strings.HasPrefix(string(f.Data), "apiVersion: "+cmp.Or(tc.apiVersion, "v2")+"\nname: web\n") {
					t.Errorf("Chart.yaml:\n%s", f.Data)
				}
			}
			for _, want := range []string{"Chart.yaml", "values.yaml", ".helmignore", "templates/_helpers.tpl",
				"templates/deployment.yaml", "templates/service.yaml", "templates/ingress.yaml", "templates/httproute.yaml",
				"templates/hpa.yaml", "templates/serviceaccount.yaml", "templates/NOTES.txt", "templates/tests/test-connection.yaml"} {
				if !names[want] {
					t.Errorf("scaffold lacks %s", want)
				}
			}
			if files[0].Name != "Chart.yaml" || files[len(files)-1].Name != "templates/tests/test-connection.yaml" {
				t.Errorf("files not in Helm's order: first %s, last %s", files[0].Name, files[len(files)-1].Name)
			}
			if len(names) != 12 {
				t.Errorf("scaffold has %d files, Helm's create writes 12", len(names))
			}
		})
	}
}

func TestNames(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "../x", "a b", "ünï", strings.Repeat("a", 251)} {
		if _, err := create.Scaffold(bad, dialect.Helm4, ""); err == nil {
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
