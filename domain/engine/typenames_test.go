package engine_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
)

// Templates see Helm's type names (typeOf, printf "%T", "wrong type for value; ... got X"):
// the wanted texts are what Helm v3.22.0 and v4.3.1 print for the same template.
func TestTypeNames(t *testing.T) {
	text := `{{ typeOf . }} {{ typeOf .Values }} {{ typeOf .Template }} {{ typeOf (.Values.Table "a") }} {{ typeOf .Files }} {{ typeOf .Chart }}`
	tests := map[string]struct {
		d    dialect.Dialect
		want string
	}{
		"helm3": {dialect.Helm3, "chartutil.Values chartutil.Values chartutil.Values chartutil.Values engine.files struct { chart.Metadata; IsRoot bool }"},
		"helm4": {dialect.Helm4, "common.Values common.Values common.Values common.Values engine.files map[string]interface {}"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := engine.Engine{Dialect: tc.d}.Render(helm4Chart(text), topValues(M{"a": M{"b": 1}}))
			if err != nil {
				t.Fatal(err)
			}
			if got := out["et/templates/t.yaml"]; got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestHelm3ChartPrints: in the Helm 3 dialect .Chart is of Helm 3's types and fields only,
// so printing it or its dependencies and maintainers shows what Helm v3.22.0 shows for the
// same Chart.yaml (fields kubectl chart models beyond Helm's, such as depends-on, stay out).
func TestHelm3ChartPrints(t *testing.T) {
	tests := map[string]struct {
		md   *chart.Metadata
		text string
		want string
	}{
		"a dependency and a maintainer": {
			md: &chart.Metadata{Name: "mychart", Version: "0.1.0", APIVersion: "v2",
				Maintainers:  []*chart.Maintainer{{Name: "a"}},
				Dependencies: []*chart.Dependency{{Name: "sub", Version: "0.1.0", Enabled: true, DependsOn: []string{"x"}}}},
			text: `{{ range $i, $v := .Chart.Dependencies }}{{ $i }}={{ $v }};{{ end }} {{ first .Chart.Maintainers }} {{ typeOf (first .Chart.Maintainers) }}`,
			want: `0={sub 0.1.0   [] true [] }; {a  } *chart.Maintainer`,
		},
		"the chart": {
			md:   &chart.Metadata{Name: "mychart", Version: "0.1.0", APIVersion: "v2"},
			text: `{{ .Chart }}`,
			want: `{{mychart  [] 0.1.0  [] []  v2    false map[]  [] } true}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := helm4Chart(tc.text)
			c.Metadata = tc.md
			out, err := engine.Engine{Dialect: dialect.Helm3}.Render(c, topValues(M{}))
			if err != nil {
				t.Fatal(err)
			}
			if got := out["mychart/templates/t.yaml"]; got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
