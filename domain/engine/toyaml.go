package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm3/chartutil"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/helm4/common"
	yamlv2 "github.com/kubectl-chart/kubectl-chart/domain/internal/yamlv2"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// marshalYAML is sigs.k8s.io/yaml.Marshal, which Helm's toYaml uses, made faster
// for the plain value trees templates pass (maps, lists, strings, numbers, bools).
// Marshal encodes to JSON, parses that JSON with the YAML parser and encodes the
// result. yamlTree builds the parser's result directly, resolving every number
// token exactly as the parser would, and the same YAML encoder writes it; any other
// value, and any string the YAML parser would read differently or refuse, takes
// the original route. A differential fuzz test holds the two equal. The encoder
// is yaml.v2's, in the copy whose emitter does not keep every event of the
// document (domain/internal/yamlv2): a quarter of what a CRD-heavy render allocates.
func marshalYAML(v any) ([]byte, error) {
	tree, state := yamlTree(v, 0)
	if state == treeFallback {
		// The original route recurses as deep as v: refuse what it would refuse
		// before it overflows the stack.
		state = treeOK
		if deeperThan(v, yamlMaxDepth) {
			state = treeTooDeep
		}
		if state == treeOK {
			return yaml.Marshal(v)
		}
	}
	if state == treeTooDeep {
		return nil, yamlDepthError{v}
	}
	return yamlv2.Marshal(tree)
}

// yamlDepthError is what sigs.k8s.io/yaml.Marshal reports for a value nested
// deeper than its YAML parser reads: the JSON encoder's error for a value that
// contains itself, the parser's for any other. Its text is worked out only when
// read: telling a cycle from a deep chain walks the whole value, which toYaml
// (it prints "" either way) never needs, and on a million-deep chain that walk
// costs hundreds of megabytes.
type yamlDepthError struct{ v any }

func (e yamlDepthError) Error() string {
	if via, ok := cycleVia(e.v); ok {
		return "error marshaling into JSON: json: unsupported value: encountered a cycle via " + via
	}
	return fmt.Sprintf("yaml: exceeded max depth of %d", yamlMaxDepth)
}

// treeState is how far yamlTree got: a tree, a value it leaves to the original
// route, or one nested deeper than yamlMaxDepth.
type treeState int

const (
	treeOK treeState = iota
	treeFallback
	treeTooDeep
)

// yamlTree builds the YAML parser's tree of v, which depth maps and lists enclose.
func yamlTree(v any, depth int) (any, treeState) {
	switch t := v.(type) {
	case nil, bool:
		return t, treeOK
	case string:
		return t, safeState(yamlSafeString(t))
	case map[string]any:
		return yamlMap(t, depth+1)
	case map[string]string:
		if t == nil {
			return nil, treeOK
		}
		if depth+1 > yamlMaxDepth {
			return nil, treeTooDeep
		}
		out := make(map[any]any, len(t))
		for k, x := range t {
			if !yamlSafeString(k) || !yamlSafeString(x) {
				return nil, treeFallback
			}
			out[k] = x
		}
		return out, treeOK
	case []any:
		if t == nil {
			return nil, treeOK
		}
		if depth+1 > yamlMaxDepth {
			return nil, treeTooDeep
		}
		out := make([]any, len(t))
		for i, x := range t {
			var state treeState
			if out[i], state = yamlTree(x, depth+1); state != treeOK {
				return nil, state
			}
		}
		return out, treeOK
	case values.Values:
		return yamlMap(map[string]any(t), depth+1)
	case chartutil.Values:
		return yamlMap(map[string]any(t), depth+1)
	case common.Values:
		return yamlMap(map[string]any(t), depth+1)
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		n, ok := yamlNumber(t)
		return n, safeState(ok)
	}
	return nil, treeFallback
}

func safeState(ok bool) treeState {
	if ok {
		return treeOK
	}
	return treeFallback
}

// yamlMap is yamlTree of a map at depth.
func yamlMap(m map[string]any, depth int) (any, treeState) {
	if m == nil {
		return nil, treeOK
	}
	if depth > yamlMaxDepth {
		return nil, treeTooDeep
	}
	out := make(map[any]any, len(m))
	for k, x := range m {
		if !yamlSafeString(k) {
			return nil, treeFallback
		}
		tx, state := yamlTree(x, depth)
		if state != treeOK {
			return nil, state
		}
		out[k] = tx
	}
	return out, treeOK
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
