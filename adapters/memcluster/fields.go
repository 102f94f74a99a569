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

// elem is one step of a field path: a map key, or an item of an
// associative list, named by its key fields as JSON ({"name":"web"}).
type elem struct {
	name string
	item bool
}

// itemKey decodes an item's key.
func (e elem) itemKey() map[string]any {
	var key map[string]any
	dec := json.NewDecoder(strings.NewReader(e.name))
	dec.UseNumber()
	_ = dec.Decode(&key)
	out, _ := numbers(key).(map[string]any)
	return out
}

// path is a field path; its string is the API server's (.spec.replicas,
// .spec.template.spec.containers[name="web"].image).
type path []elem

func (p path) String() string {
	var b strings.Builder
	for _, e := range p {
		if e.item {
			key := e.itemKey()
			parts := make([]string, 0, len(key))
			for _, k := range sortedKeys(key) {
				v, _ := json.Marshal(key[k])
				parts = append(parts, k+"="+string(v))
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
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

// isKeyField reports whether p is a key field of a list item (removed only
// with its item).
func (p path) isKeyField() bool {
	n := len(p)
	if n < 2 || !p[n-2].item || p[n-1].item {
		return false
	}
	_, ok := p[n-2].itemKey()[p[n-1].name]
	return ok
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
// scalars, atomic lists and maps, empty maps, and for associative lists
// (keyed: built-in kinds only) each item and its fields.
func leaves(obj map[string]any, keyed bool) []leaf {
	var out []leaf
	var walk func(p path, v any)
	walk = func(p path, v any) {
		field := ""
		if len(p) > 0 && !p[len(p)-1].item {
			field = p[len(p)-1].name
		}
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 && len(p) > 0 || keyed && atomicMap(field) {
				out = append(out, leaf{p: clonePath(p), v: x})
				return
			}
			for _, k := range sortedKeys(x) {
				walk(append(p, elem{name: k}), x[k])
			}
		case []any:
			var keys []string
			if keyed {
				keys = listKeys(field, x)
			}
			if keys == nil {
				out = append(out, leaf{p: clonePath(p), v: x})
				return
			}
			for _, it := range x {
				m := it.(map[string]any)
				ip := append(p, elem{name: itemKeyOf(m, keys), item: true})
				out = append(out, leaf{p: clonePath(ip), v: itemMarker{}})
				for _, k := range sortedKeys(m) {
					walk(append(ip, elem{name: k}), m[k])
				}
			}
		default:
			out = append(out, leaf{p: clonePath(p), v: x})
		}
	}
	walk(nil, obj)
	return out
}

func clonePath(p path) path { return append(path(nil), p...) }

// atomicMap reports whether maps under this field name are owned whole, as
// built-in kinds' label selectors and node selectors are.
func atomicMap(field string) bool {
	switch field {
	case "selector", "podSelector", "namespaceSelector", "labelSelector", "nodeSelector":
		return true
	}
	return false
}

// listKeys are the key fields of an associative list of built-in kinds, by
// the list's field name; nil for an atomic list, or for items without their
// keys or with duplicate keys.
func listKeys(field string, items []any) []string {
	if len(items) == 0 {
		return nil
	}
	var keys []string
	switch field {
	case "containers", "initContainers", "ephemeralContainers", "volumes", "env",
		"imagePullSecrets", "webhooks", "resourceClaims":
		keys = []string{"name"}
	case "volumeMounts":
		keys = []string{"mountPath"}
	case "volumeDevices":
		keys = []string{"devicePath"}
	case "hostAliases":
		keys = []string{"ip"}
	case "topologySpreadConstraints":
		keys = []string{"topologyKey", "whenUnsatisfiable"}
	case "ownerReferences":
		keys = []string{"uid"}
	case "ports":
		keys = []string{"port", "protocol"}
		if m, ok := items[0].(map[string]any); ok && m["containerPort"] != nil {
			keys = []string{"containerPort", "protocol"}
		}
	default:
		return nil
	}
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil
		}
		for _, k := range keys {
			if _, has := m[k]; !has && keyDefault(k) == nil {
				return nil
			}
		}
		key := itemKeyOf(m, keys)
		if seen[key] {
			return nil
		}
		seen[key] = true
	}
	return keys
}

// keyDefault is the value the API server defaults a missing key field to.
func keyDefault(field string) any {
	if field == "protocol" {
		return "TCP"
	}
	return nil
}

// itemKeyOf is an item's key as JSON, defaults filled in.
func itemKeyOf(item map[string]any, keys []string) string {
	key := make(map[string]any, len(keys))
	for _, k := range keys {
		v, ok := item[k]
		if !ok {
			v = keyDefault(k)
		}
		key[k] = v
	}
	b, _ := json.Marshal(key)
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// findItem is the index of the item of l with e's key, or -1.
func findItem(l []any, e elem) int {
	key := e.itemKey()
	for i, it := range l {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		match := true
		for k, want := range key {
			v, has := m[k]
			if !has {
				v = keyDefault(k)
			}
			if !equalValues(v, want) {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// get reads the value at p; an item's own path reads itemMarker.
func get(obj map[string]any, p path) (any, bool) {
	v, ok := lookup(obj, p)
	if ok && len(p) > 0 && p[len(p)-1].item {
		return itemMarker{}, true
	}
	return v, ok
}

// lookup reads the value at p; an item's own path reads the item.
func lookup(obj map[string]any, p path) (any, bool) {
	var cur any = obj
	for _, e := range p {
		if e.item {
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			j := findItem(l, e)
			if j < 0 {
				return nil, false
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
			if vm, isMap := v.(map[string]any); isMap && len(vm) == 0 {
				if _, have := m[e.name].(map[string]any); have {
					return // an empty map set over a map merges into it
				}
			}
			m[e.name] = deepCopy(v)
			return
		}
		if p[i+1].item {
			l, _ := m[e.name].([]any)
			j := findItem(l, p[i+1])
			if j < 0 {
				l = append(l, p[i+1].itemKey())
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
		holder, ok := lookup(obj, parentPath)
		l, isList := holder.([]any)
		if !ok || !isList {
			return
		}
		j := findItem(l, last)
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
		if holder, ok = lookup(obj, parentPath); !ok {
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
				key = "k:" + e.name
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
