package engine

import (
	"encoding/json"
	"math"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// sameAsSigs checks that marshalYAML writes what sigs.k8s.io/yaml.Marshal writes
// (Helm's toYaml), errors included.
func sameAsSigs(t *testing.T, v any) {
	t.Helper()
	got, gotErr := marshalYAML(v)
	want, wantErr := yaml.Marshal(v)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("marshalYAML(%#v) error %v, sigs.k8s.io/yaml %v", v, gotErr, wantErr)
	}
	if string(got) != string(want) {
		t.Fatalf("marshalYAML(%#v) =\n%s\nsigs.k8s.io/yaml =\n%s", v, got, want)
	}
}

func TestMarshalYAMLMatchesSigs(t *testing.T) {
	tests := map[string]any{
		"nil":            nil,
		"scalars":        map[string]any{"s": "x", "b": true, "n": nil, "i": int64(3), "f": 1.5},
		"integral float": map[string]any{"port": float64(8080), "big": 1e6, "huge": 1e20, "e21": 1e21, "tiny": 1e-7, "neg0": math.Copysign(0, -1)},
		"ints":           []any{int(1), int8(-2), uint64(math.MaxUint64), int64(math.MinInt64), float32(0.1)},
		"strings needing quotes": map[string]any{"a": "true", "b": "0123", "c": "yes", "d": "", "e": "a: b", "f": "- x",
			"g": "multi\nline\n", "h": "tab\there", "i": "<&>", "j": "\u2028", "k": "ünïcödé", "l": "\x01ctl", "m": "null", "n": "~"},
		"unsafe runes":    map[string]any{"del": "a\x7fb", "c1": "a\u0085b", "bom": "\ufeff", "bad": "\xff"},
		"nested":          map[string]any{"m": map[string]any{"l": []any{map[string]any{"x": 1.0}, nil, []any{}}}, "e": map[string]any{}},
		"natural sort":    map[string]any{"a10": 1.0, "a9": 2.0, "A": 3.0, "_": 4.0, "1": 5.0},
		"string map":      map[string]string{"b": "2", "a": "1"},
		"nil string map":  map[string]string(nil),
		"values":          values.Values{"x": "y"},
		"nil values":      values.Values(nil),
		"nil list":        []any(nil),
		"nan":             map[string]any{"x": math.NaN()},
		"struct fallback": struct{ Name string }{"x"},
		"bytes fallback":  map[string]any{"b": []byte("hi")},
	}
	for name, v := range tests {
		t.Run(name, func(t *testing.T) { sameAsSigs(t, v) })
	}
}

func FuzzMarshalYAML(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":[1,2.5,"x",null,true]}`, `{"k":"v\u0085","1e3":1e21}`, `[{"a":{"b":-0}}]`, `"plain"`, `{"x":"\u007f"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			return
		}
		sameAsSigs(t, v)
	})
}
