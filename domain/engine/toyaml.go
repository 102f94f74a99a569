package engine

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chartutil"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/common"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// marshalYAML is sigs.k8s.io/yaml.Marshal, which Helm's toYaml uses, made faster
// for the plain value trees templates pass (maps, lists, strings, numbers, bools).
// Marshal encodes to JSON, parses that JSON with the YAML parser and encodes the
// result. yamlTree builds the parser's result directly, resolving every number
// token exactly as the parser would, and the same YAML encoder writes it; any other
// value, and any string the YAML parser would read differently or refuse, takes
// the original route. A differential fuzz test holds the two equal.
func marshalYAML(v any) ([]byte, error) {
	if tree, ok := yamlTree(v); ok {
		return yamlv2.Marshal(tree)
	}
	return yaml.Marshal(v)
}

func yamlTree(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool:
		return t, true
	case string:
		return t, yamlSafeString(t)
	case map[string]any:
		return yamlMap(t)
	case map[string]string:
		if t == nil {
			return nil, true
		}
		out := make(map[any]any, len(t))
		for k, x := range t {
			if !yamlSafeString(k) || !yamlSafeString(x) {
				return nil, false
			}
			out[k] = x
		}
		return out, true
	case []any:
		if t == nil {
			return nil, true
		}
		out := make([]any, len(t))
		for i, x := range t {
			var ok bool
			if out[i], ok = yamlTree(x); !ok {
				return nil, false
			}
		}
		return out, true
	case values.Values:
		return yamlMap(map[string]any(t))
	case chartutil.Values:
		return yamlMap(map[string]any(t))
	case common.Values:
		return yamlMap(map[string]any(t))
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return yamlNumber(t)
	}
	return nil, false
}

func yamlMap(m map[string]any) (any, bool) {
	if m == nil {
		return nil, true
	}
	out := make(map[any]any, len(m))
	for k, x := range m {
		if !yamlSafeString(k) {
			return nil, false
		}
		tx, ok := yamlTree(x)
		if !ok {
			return nil, false
		}
		out[k] = tx
	}
	return out, true
}

// yamlNumber resolves the JSON text of a number the way the YAML parser resolves a
// plain scalar: an integer when it fits, else an unsigned integer, else a float.
func yamlNumber(v any) (any, bool) {
	text, err := json.Marshal(v)
	if err != nil { // NaN and infinities: JSON refuses them, and so must we
		return nil, false
	}
	s := string(text)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		if int64(int(i)) == i {
			return int(i), true
		}
		return i, true
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u, true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// yamlSafeString reports whether the YAML parser reads the JSON encoding of s back
// as s. JSON escapes control characters and U+2028/U+2029 but writes other runes as
// they are; the YAML parser refuses DEL, C1 controls, a byte-order mark and
// non-characters, and treats NEL as a line break. Invalid UTF-8 is replaced by JSON.
func yamlSafeString(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	return true
}
