// Package yamldoc reads YAML documents into the generic values Helm works with,
// exactly as sigs.k8s.io/yaml does (YAML → JSON → Go), but faster for the usual
// documents.
package yamldoc

import (
	"math"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// UnmarshalMap is sigs.k8s.io/yaml.Unmarshal(data, &m) into a fresh map: numbers
// come out as float64, keys as strings. The YAML is parsed once by the same parser;
// the parsed tree is converted to what the JSON route would produce when that is
// certain, and anything else (odd keys, non-finite numbers, invalid UTF-8, a
// document that is not a mapping) takes the JSON route itself, so results and
// error texts are sigs.k8s.io/yaml's.
func UnmarshalMap(data []byte) (map[string]any, error) {
	var raw any
	if err := yamlv2.Unmarshal(data, &raw); err == nil {
		switch t := raw.(type) {
		case nil:
			return map[string]any{}, nil
		case map[any]any:
			if m, ok := jsonMap(t); ok {
				return m, nil
			}
		}
	}
	m := map[string]any{}
	err := yaml.Unmarshal(data, &m)
	return m, err
}

func jsonMap(in map[any]any) (map[string]any, bool) {
	out := make(map[string]any, len(in))
	for k, v := range in {
		key, ok := jsonKey(k)
		if !ok {
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		jv, ok := jsonValue(v)
		if !ok {
			return nil, false
		}
		out[key] = jv
	}
	return out, true
}

// jsonKey stringifies a key as sigs.k8s.io/yaml does.
func jsonKey(k any) (string, bool) {
	switch t := k.(type) {
	case string:
		return t, utf8.ValidString(t)
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

func jsonValue(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return t, true
	case string:
		return t, utf8.ValidString(t)
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case uint64:
		return float64(t), true
	case float64:
		return t, !math.IsInf(t, 0) && !math.IsNaN(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			var ok bool
			if out[i], ok = jsonValue(x); !ok {
				return nil, false
			}
		}
		return out, true
	case map[any]any:
		return jsonMap(t)
	}
	return nil, false
}
