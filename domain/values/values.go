// Package values holds chart values: reading them, looking paths up, coalescing user
// values with chart defaults and subcharts exactly as Helm does, and the dependency
// processing (conditions, tags, aliases, import-values) that depends on them.
package values

import (
	"errors"
	"fmt"
	"strings"
)

// GlobalKey is the values key shared by a chart and all its subcharts.
const GlobalKey = "global"

// Values is a tree of values as parsed from YAML or --set flags.
type Values map[string]any

// ErrNoTable means a path does not lead to a table (map).
type ErrNoTable struct{ Key string }

func (e ErrNoTable) Error() string { return fmt.Sprintf("%q is not a table", e.Key) }

// ErrNoValue means a path does not lead to a value.
type ErrNoValue struct{ Key string }

func (e ErrNoValue) Error() string { return fmt.Sprintf("%q is not a value", e.Key) }

// AsMap returns the values as a plain map, never nil.
func (v Values) AsMap() map[string]any {
	if len(v) == 0 {
		return map[string]any{}
	}
	return v
}

// Table returns the table at a dotted path.
func (v Values) Table(name string) (Values, error) {
	table := v
	var err error
	for _, n := range strings.Split(name, ".") {
		if table, err = tableLookup(table, n); err != nil {
			break
		}
	}
	return table, err
}

func tableLookup(v Values, key string) (Values, error) {
	child, ok := v[key]
	if !ok {
		return v, ErrNoTable{key}
	}
	switch t := child.(type) {
	case map[string]any:
		return t, nil
	case Values:
		return t, nil
	}
	return Values{}, ErrNoTable{key}
}

// PathValue returns the non-table value at a dotted path.
func (v Values) PathValue(p string) (any, error) {
	if p == "" {
		return nil, errors.New("YAML path cannot be empty")
	}
	parts := strings.Split(p, ".")
	key := parts[len(parts)-1]
	table := v
	if len(parts) > 1 {
		t, err := v.Table(strings.Join(parts[:len(parts)-1], "."))
		if err != nil {
			return nil, ErrNoValue{key}
		}
		table = t
	}
	if val, ok := table[key]; ok && !isTable(val) {
		return val, nil
	}
	return nil, ErrNoValue{key}
}

func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// DeepCopy copies maps and lists of a value tree; scalars are shared.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyMapDeep(t)
	case Values:
		return Values(copyMapDeep(t))
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = DeepCopy(x)
		}
		return out
	}
	return v
}

func copyMapDeep(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = DeepCopy(x)
	}
	return out
}

// MergeMaps merges b into a copy of a, recursing into tables; b wins. It is how
// several -f files combine before --set flags apply.
func MergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bt, ok := v.(map[string]any); ok {
			if at, ok := out[k].(map[string]any); ok {
				out[k] = MergeMaps(at, bt)
				continue
			}
		}
		out[k] = v
	}
	return out
}
