package loader_test

import (
	"slices"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// depends-on (HIP-0025) is a field Helm does not know: whatever it holds,
// Helm loads the chart, and so do we; only a list of names means anything.
func TestDependsOnAnyShapeLoads(t *testing.T) {
	tests := map[string]struct {
		value string
		want  []string
	}{
		"a list":          {value: "[db, queue]", want: []string{"db", "queue"}},
		"a string":        {value: "db"},
		"a number":        {value: "3"},
		"a mapping":       {value: "{name: db}"},
		"a list of lists": {value: "[[db]]"},
		"null":            {value: "null"},
	}
	for name, tc := range tests {
		for _, d := range []dialect.Dialect{dialect.Helm3, dialect.Helm4} {
			t.Run(name+" "+string(d), func(t *testing.T) {
				chartYAML := "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  depends-on: " + tc.value + "\n"
				c, err := loader.LoadFiles([]*loader.BufferedFile{
					{Name: "Chart.yaml", Data: []byte(chartYAML)},
					{Name: "charts/sub/Chart.yaml", Data: []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")},
				}, loader.LimitsFor(d))
				if err != nil {
					t.Fatalf("Helm loads this chart: %v", err)
				}
				if got := c.Metadata.Dependencies[0].DependsOn; !slices.Equal(got, tc.want) {
					t.Errorf("depends-on = %q, want %q", got, tc.want)
				}
			})
		}
	}
}
