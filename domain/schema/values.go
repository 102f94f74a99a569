package schema

import (
	"encoding/json"
	"reflect"
)

// helmShape returns v in the form Helm hands to the validator. Helm does not
// convert values before validating: numbers stay as its parsers made them
// (float64 from YAML and --set-json, int64 from --set), and that matters for
// precision beyond 2^53 and for %T in messages, so scalars pass through
// untouched. Only containers Helm never holds (named map types such as a
// Values type, typed slices) become plain maps and slices, and other
// non-JSON types take the JSON round trip Helm's YAML parser applies.
// Containers are copied only when something inside them changes; the input
// is never modified.
func helmShape(v any) any {
	out, _ := reshape(v)
	return out
}

// reshape reports whether the result differs from v so callers can avoid copies.
func reshape(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, string, json.Number, float32, float64,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return v, false
	case map[string]any:
		return reshapeMap(x)
	case []any:
		return reshapeSlice(x)
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String:
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			out[it.Key().String()] = helmShape(it.Value().Interface())
		}
		return out, true
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = helmShape(rv.Index(i).Interface())
		}
		return out, true
	}
	return viaJSON(v)
}

func reshapeMap(m map[string]any) (any, bool) {
	var out map[string]any
	for k, v := range m {
		nv, changed := reshape(v)
		if !changed {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(m))
			for k2, v2 := range m {
				out[k2] = v2
			}
		}
		out[k] = nv
	}
	if out == nil {
		return m, false
	}
	return out, true
}

func reshapeSlice(s []any) (any, bool) {
	var out []any
	for i, v := range s {
		nv, changed := reshape(v)
		if !changed {
			continue
		}
		if out == nil {
			out = make([]any, len(s))
			copy(out, s)
		}
		out[i] = nv
	}
	if out == nil {
		return s, false
	}
	return out, true
}

// viaJSON handles what only a non-Helm decoder produces (timestamps, byte
// strings...) the way Helm's YAML-through-JSON parser would have. Values that
// cannot be encoded are left for the validator to reject.
func viaJSON(v any) (any, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return v, false
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return v, false
	}
	return out, true
}
