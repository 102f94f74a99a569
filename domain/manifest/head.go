package manifest

import (
	"math"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// parseHead reads what sorting needs of a document. Helm decodes the whole
// document through JSON into its head type; that decides which documents are
// errors and what the error says. The usual document is plain block YAML that
// scanHead checks without building it; others are parsed once by the same
// parser and the fields taken directly when they are plainly typed; anything
// else goes the JSON way, so results and error texts stay Helm's.
func parseHead(doc string) (*Head, error) {
	if h, ok := scanHead(doc); ok {
		return h, nil
	}
	var raw any
	if err := yamlv2.Unmarshal([]byte(doc), &raw); err == nil && jsonable(raw) {
		if h, ok := headFromYAML(raw); ok {
			return h, nil
		}
	}
	var head Head
	if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
		return nil, err
	}
	return &head, nil
}

// jsonable reports whether the YAML to JSON conversion certainly succeeds: map
// keys it can turn into strings, no values that JSON cannot hold.
func jsonable(v any) bool {
	switch t := v.(type) {
	case nil, string, bool, int, int64, uint64:
		return true
	case float64:
		return !math.IsInf(t, 0) && !math.IsNaN(t)
	case []any:
		for _, x := range t {
			if !jsonable(x) {
				return false
			}
		}
		return true
	case map[any]any:
		for k, x := range t {
			switch kt := k.(type) {
			case string, int, int64, bool:
			case float64:
				if math.IsInf(kt, 0) || math.IsNaN(kt) {
					return false
				}
			default:
				return false
			}
			if !jsonable(x) {
				return false
			}
		}
		return true
	}
	return false
}

// headFromYAML extracts the head from a parsed document, or reports false when
// JSON decoding could treat the document differently (non-string values,
// keys that differ from the field names only in case, which JSON also accepts).
func headFromYAML(raw any) (*Head, bool) {
	if raw == nil {
		return &Head{}, true
	}
	top, ok := raw.(map[any]any)
	if !ok {
		return nil, false
	}
	h := &Head{}
	for k, v := range top {
		key, ok := k.(string)
		if !ok {
			continue
		}
		switch {
		case key == "apiVersion":
			if h.Version, ok = optionalString(v); !ok {
				return nil, false
			}
		case key == "kind":
			if h.Kind, ok = optionalString(v); !ok {
				return nil, false
			}
		case key == "metadata":
			if h.Metadata, ok = metaFromYAML(v); !ok {
				return nil, false
			}
		case strings.EqualFold(key, "apiVersion"), strings.EqualFold(key, "kind"), strings.EqualFold(key, "metadata"):
			return nil, false
		}
	}
	return h, true
}

func metaFromYAML(v any) (*HeadMeta, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[any]any)
	if !ok {
		return nil, false
	}
	meta := &HeadMeta{}
	for k, v := range m {
		key, ok := k.(string)
		if !ok {
			continue
		}
		switch {
		case key == "name":
			if meta.Name, ok = optionalString(v); !ok {
				return nil, false
			}
		case key == "annotations":
			if meta.Annotations, ok = stringMap(v); !ok {
				return nil, false
			}
		case strings.EqualFold(key, "name"), strings.EqualFold(key, "annotations"):
			return nil, false
		}
	}
	return meta, true
}

func optionalString(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	s, ok := v.(string)
	return s, ok
}

func stringMap(v any) (map[string]string, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[any]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		ks, ok := k.(string)
		if !ok {
			return nil, false
		}
		xs, ok := x.(string)
		if !ok {
			return nil, false
		}
		out[ks] = xs
	}
	return out, true
}
