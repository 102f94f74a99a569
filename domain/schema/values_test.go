package schema

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestHelmShape(t *testing.T) {
	type named map[string]any
	when := time.Date(2001, 12, 14, 21, 59, 43, 0, time.UTC)
	tests := map[string]struct {
		in, want any
	}{
		"scalars kept as parsed": {
			in:   []any{"s", true, nil, 1.5, int64(9007199254740993), json.Number("1")},
			want: []any{"s", true, nil, 1.5, int64(9007199254740993), json.Number("1")},
		},
		"named map becomes plain": {
			in:   map[string]any{"sub": named{"n": int64(1)}},
			want: map[string]any{"sub": map[string]any{"n": int64(1)}},
		},
		"typed slice becomes plain": {
			in:   map[string]any{"l": []string{"a", "b"}},
			want: map[string]any{"l": []any{"a", "b"}},
		},
		"other types through JSON": {
			in:   map[string]any{"t": when},
			want: map[string]any{"t": "2001-12-14T21:59:43Z"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := helmShape(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("helmShape(%#v) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

func TestHelmShapeCopiesOnlyWhatChanges(t *testing.T) {
	type named map[string]any
	plain := map[string]any{"s": "x", "n": int64(1)}
	in := map[string]any{"plain": plain, "named": named{"a": 1.0}}
	out := helmShape(in).(map[string]any)
	if _, ok := in["named"].(named); !ok {
		t.Errorf("input modified: %#v", in)
	}
	if reflect.ValueOf(out["plain"]).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Errorf("unchanged sub-map was copied")
	}
	if reflect.ValueOf(helmShape(plain)).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Errorf("unchanged map was copied")
	}
}
