package yaml_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	upstream "go.yaml.in/yaml/v2"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/yamlv2"
)

// The copy differs from upstream only in how the emitter keeps its event
// queue: these tests encode through both and want the same bytes.

func compareMarshal(t *testing.T, v any) {
	t.Helper()
	want, wantErr := upstream.Marshal(v)
	got, gotErr := yaml.Marshal(v)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("Marshal(%#v) error %v, upstream %v", v, gotErr, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal(%#v) =\n%s\nupstream\n%s", v, got, want)
	}
}

func TestMarshalMatchesUpstream(t *testing.T) {
	long := strings.Repeat("word ", 40)
	deep := map[string]any{"x": 1}
	for range 50 {
		deep = map[string]any{"d": deep, "l": []any{"s", 1}}
	}
	for name, v := range map[string]any{
		"nil":     nil,
		"scalars": []any{1, -2.5, math.Inf(1), math.NaN(), true, "", "null", "yes", "a: b", "# c", "x\ny\n", "x\n\n", " lead", "trail ", "\ttab", long, "é\u2028"},
		"maps":    map[string]any{"b": map[string]any{}, "a": []any{}, "c": map[any]any{1: "one", true: "t", 2.5: nil}, "d": []any{map[string]any{"k": "v", "l": []any{1, []any{2}}}}},
		"deep":    deep,
		"struct": struct {
			A string `yaml:"a,omitempty"`
			B []int  `yaml:",flow"`
			C map[string]int
		}{B: []int{1, 2}, C: map[string]int{"x": 1}},
	} {
		t.Run(name, func(t *testing.T) { compareMarshal(t, v) })
	}
}

// FuzzMarshalMatchesUpstream encodes what upstream decodes of random YAML.
func FuzzMarshalMatchesUpstream(f *testing.F) {
	for _, s := range []string{
		"a: 1", "- x\n- {y: [1, 2.5, true, null]}\n", "k: |\n  line\n\n  more\n", "k: >+\n  folded\n\n", "'a b': \"c\\td\"",
		"a:\n  b:\n    c:\n      - d\n      - e: f\n        g: [h, i]\n", "? [1, 2]\n: x\n", "a: &x {b: 1}\nc: *x\n", "long: " + strings.Repeat("w ", 90),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if upstream.Unmarshal([]byte(s), &v) != nil {
			return
		}
		compareMarshal(t, v)
	})
}
