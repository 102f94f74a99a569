package memcluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// elem is one step of a field path: a map key, or the item of a list merged
// by name.
type elem struct {
	name string
	item bool
}

// path is a field path; its string is the API server's (.spec.replicas,
// .spec.template.spec.containers[name="web"].image).
type path []elem

func (p path) String() string {
	var b strings.Builder
	for _, e := range p {
		if e.item {
			fmt.Fprintf(&b, "[name=%q]", e.name)
		} else {
			b.WriteString("." + e.name)
		}
	}
	return b.String()
}

// hasPrefix reports whether q is p or lies under p.
func (p path) hasPrefix(q path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// isKeyField reports whether p is the name of a list item (removed only with
// its item).
func (p path) isKeyField() bool {
	n := len(p)
	return n >= 2 && p[n-2].item && !p[n-1].item && p[n-1].name == "name"
}

// fieldSet is a set of paths by their string.
type fieldSet map[string]path

func (s fieldSet) clone() fieldSet {
	out := make(fieldSet, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

func (s fieldSet) equal(o fieldSet) bool {
	if len(s) != len(o) {
		return false
	}
	for k := range s {
		if _, ok := o[k]; !ok {
			return false
		}
	}
	return true
}

// itemMarker is the value of a list item's own path: the item exists.
type itemMarker struct{}

// leaf is one owned field and its value.
type leaf struct {
	p path
	v any
}

// leaves flattens an object into the fields a manager owns by setting it:
// scalars, atomic lists, empty maps, and for lists merged by name each item
// and its fields.
func leaves(obj map[string]any, keyed bool) []leaf {
	var out []leaf
	var walk func(p path, v any)
	walk = func(p path, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 && len(p) > 0 {
				out = append(out, leaf{p: clonePath(p), v: map[string]any{}})
				return
			}
			for _, k := range sortedKeys(x) {
				walk(append(p, elem{name: k}), x[k])
			}
		case []any:
			if keyed && namedItems(x) {
				for _, it := range x {
					m := it.(map[string]any)
					ip := append(p, elem{name: m["name"].(string), item: true})
					out = append(out, leaf{p: clonePath(ip), v: itemMarker{}})
					for _, k := range sortedKeys(m) {
						walk(append(ip, elem{name: k}), m[k])
					}
				}
				return
			}
			out = append(out, leaf{p: clonePath(p), v: x})
		default:
			out = append(out, leaf{p: clonePath(p), v: x})
		}
	}
	walk(nil, obj)
	return out
}

func clonePath(p path) path { return append(path(nil), p...) }

// namedItems reports whether a list holds only objects with distinct names.
func namedItems(l []any) bool {
	if len(l) == 0 {
		return false
	}
	seen := make(map[string]bool, len(l))
	for _, it := range l {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		n, ok := m["name"].(string)
		if !ok || n == "" || seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// findItem is the index of the item named name in l, or -1.
func findItem(l []any, name string) int {
	for i, it := range l {
		if m, ok := it.(map[string]any); ok && m["name"] == name {
			return i
		}
	}
	return -1
}

// get reads the value at p; an item's own path reads itemMarker.
func get(obj map[string]any, p path) (any, bool) {
	var cur any = obj
	for i, e := range p {
		if e.item {
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			j := findItem(l, e.name)
			if j < 0 {
				return nil, false
			}
			if i == len(p)-1 {
				return itemMarker{}, true
			}
			cur = l[j]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[e.name]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// set writes v at p, making the maps, lists and items on the way.
func set(obj map[string]any, p path, v any) {
	if len(p) == 0 {
		return
	}
	var parent any = obj
	for i, e := range p {
		last := i == len(p)-1
		if e.item {
			continue // handled by the map step that holds the list
		}
		m := parent.(map[string]any)
		if last {
			if _, isMap := v.(map[string]any); isMap {
				if _, have := m[e.name].(map[string]any); have {
					return // an empty map set over a map merges into it
				}
			}
			m[e.name] = deepCopy(v)
			return
		}
		if p[i+1].item {
			l, _ := m[e.name].([]any)
			j := findItem(l, p[i+1].name)
			if j < 0 {
				l = append(l, map[string]any{"name": p[i+1].name})
				j = len(l) - 1
				m[e.name] = l
			}
			if i+1 == len(p)-1 {
				return
			}
			parent = l[j]
			continue
		}
		next, ok := m[e.name].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[e.name] = next
		}
		parent = next
	}
}

// del removes the value at p (an item's own path removes the item) and then
// the maps that this left empty, as the API server's merge does.
func del(obj map[string]any, p path) {
	if len(p) == 0 {
		return
	}
	parentPath := p[:len(p)-1]
	last := p[len(p)-1]
	if last.item {
		holder, ok := get(obj, parentPath)
		l, isList := holder.([]any)
		if !ok || !isList {
			return
		}
		j := findItem(l, last.name)
		if j < 0 {
			return
		}
		l = append(l[:j:j], l[j+1:]...)
		if len(l) == 0 {
			del(obj, parentPath)
			return
		}
		set(obj, parentPath, l)
		return
	}
	var holder any = obj
	if len(parentPath) > 0 {
		var ok bool
		if holder, ok = get(obj, parentPath); !ok {
			return
		}
	}
	m, ok := holder.(map[string]any)
	if !ok {
		return
	}
	if _, ok := m[last.name]; !ok {
		return
	}
	delete(m, last.name)
	if len(m) == 0 && len(parentPath) > 0 && !parentPath[len(parentPath)-1].item {
		del(obj, parentPath)
	}
}

// equalValues compares two normalised values.
func equalValues(a, b any) bool {
	if _, ok := a.(itemMarker); ok {
		_, ok := b.(itemMarker)
		return ok
	}
	return reflect.DeepEqual(a, b)
}

// normalize copies a JSON-like value into the API server's shapes:
// map[string]any, []any, string, bool, int64, float64; null map values are dropped.
func normalize(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	out, _ := numbers(raw).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = numbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
		return x
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// deepCopy copies a normalised value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return deepCopy(m).(map[string]any)
}

// fieldsV1 encodes a field set as the API server's managedFields do.
func fieldsV1(s fieldSet) map[string]any {
	root := map[string]any{}
	for _, p := range s {
		cur := root
		for _, e := range p {
			key := "f:" + e.name
			if e.item {
				k, _ := json.Marshal(map[string]string{"name": e.name})
				key = "k:" + string(k)
			}
			next, ok := cur[key].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[key] = next
			}
			cur = next
		}
		if len(p) > 0 && p[len(p)-1].item {
			cur["."] = map[string]any{}
		}
	}
	return root
}
