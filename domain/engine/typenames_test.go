package engine_test

import (
	"testing"

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
