// Package drift compares what a release sets with the live objects: which of
// the release's fields changed behind its back, and which field manager
// wrote them when (read from the objects' managedFields).
package drift

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Field is one field the release sets whose live value differs.
type Field struct {
	// Path names the field: .spec.replicas, .data.key,
	// .spec.template.spec.containers[name=web].image, .spec.ports[0].port.
	Path string `json:"path"`
	// Want is the release's value; Live the live one (nil when Removed).
	Want any `json:"want"`
	Live any `json:"live,omitempty"`
	// Removed means the field is gone from the live object.
	Removed bool `json:"removed,omitempty"`
	// Manager is the field manager that owns the field now, Operation how it
	// wrote it (Apply or Update) and Time when; empty when no entry covers it.
	Manager   string `json:"manager,omitempty"`
	Operation string `json:"operation,omitempty"`
	// Subresource is the subresource written through (scale, status), if any.
	Subresource string `json:"subresource,omitempty"`
	Time        string `json:"time,omitempty"`
	// Release marks a Manager that is one of the release's own (MarkRelease):
	// the value was written by an operation on the release (Helm's or ours,
	// which share the manager "helm" by default), not changed by someone else.
	Release bool `json:"release,omitempty"`
	// Secret marks a value of a Secret: never shown unless asked.
	Secret bool `json:"secret,omitempty"`
}

// segment is one step of a path: a map key, a list item found by its key
// fields, or a list index.
type segment struct {
	field string
	key   map[string]any
	index int
}

func (s segment) String() string {
	switch {
	case s.key != nil:
		names := make([]string, 0, len(s.key))
		for k := range s.key {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = fmt.Sprintf("%s=%v", k, s.key[k])
		}
		return "[" + strings.Join(parts, ",") + "]"
	case s.field != "":
		return "." + s.field
	}
	return "[" + strconv.Itoa(s.index) + "]"
}

func pathString(p []segment) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteString(s.String())
	}
	return b.String()
}

// Compare lists the fields of desired whose value in live differs, each
// attributed to the manager that owns it now. Only fields desired sets count:
// defaults the server filled in, status and fields other managers own by
// design (an autoscaler's replicas when the chart sets none) are not drift.
func Compare(desired, live ports.Object) []Field {
	c := comparer{keys: listKeys(live), owners: owners(live), secret: desired.GetKind() == "Secret" && desired.Group() == ""}
	if c.secret {
		desired = foldStringData(desired)
	}
	for _, k := range sortedKeys(desired) {
		switch k {
		case "apiVersion", "kind", "status":
			continue
		case "metadata":
			dm, _ := desired[k].(map[string]any)
			lm, _ := live[k].(map[string]any)
			for _, mk := range []string{"labels", "annotations"} {
				if dv, ok := dm[mk]; ok {
					lv, found := lm[mk]
					c.walk([]segment{{field: k}, {field: mk}}, dv, lv, found)
				}
			}
			continue
		}
		lv, found := live[k]
		c.walk([]segment{{field: k}}, desired[k], lv, found)
	}
	return c.out
}

// MarkRelease marks the fields whose owner is one of managers, the release's
// own field managers, as written by the release (Release). Writes through a
// subresource (scale, status) are never the release's: it applies objects
// whole.
func MarkRelease(fields []Field, managers []string) {
	for i, f := range fields {
		fields[i].Release = f.Manager != "" && f.Subresource == "" && slices.Contains(managers, f.Manager)
	}
}

// foldStringData is a Secret as the API server stores it: stringData's values
// base64-encoded into data (winning over data's), and no stringData.
func foldStringData(o ports.Object) ports.Object {
	sd, ok := o["stringData"].(map[string]any)
	if !ok {
		return o
	}
	out := make(ports.Object, len(o))
	for k, v := range o {
		out[k] = v
	}
	delete(out, "stringData")
	data := map[string]any{}
	if d, ok := o["data"].(map[string]any); ok {
		for k, v := range d {
			data[k] = v
		}
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	out["data"] = data
	return out
}

type comparer struct {
	keys   map[string][]string
	owners []owner
	secret bool
	out    []Field
}

func (c *comparer) walk(p []segment, want, have any, found bool) {
	if !setsSomething(want) {
		// A null in a manifest sets nothing.
		return
	}
	if !found && Zero(want) {
		// The server leaves out zero values (false, 0, ""): absent is the same.
		return
	}
	if !found {
		c.add(p, want, nil, true)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			c.add(p, want, have, false)
			return
		}
		for _, k := range sortedKeys(w) {
			hv, ok := h[k]
			c.walk(append(clone(p), segment{field: k}), w[k], hv, ok)
		}
	case []any:
		h, ok := have.([]any)
		if !ok {
			c.add(p, want, have, false)
			return
		}
		c.walkList(p, w, h)
	default:
		if !equal(want, have) {
			c.add(p, want, have, false)
		}
	}
}

// walkList compares lists: items found by their key fields where the live
// object's managedFields say which those are (containers by name, ports by
// port and protocol ...), otherwise by position; a list of scalars is one value.
func (c *comparer) walkList(p []segment, want, have []any) {
	keys := c.keys[shape(p)]
	if len(keys) == 0 && allHave(want, "name") {
		keys = []string{"name"}
	}
	if len(keys) > 0 && allMaps(want) {
		for _, w := range want {
			wm := w.(map[string]any)
			key := map[string]any{}
			for _, k := range keys {
				if v, ok := wm[k]; ok {
					key[k] = v
				}
			}
			item, ok := findItem(have, key)
			c.walk(append(clone(p), segment{key: key}), w, item, ok)
		}
		return
	}
	if !allMaps(want) || len(want) != len(have) {
		if !equal(any(want), any(have)) {
			c.add(p, want, have, false)
		}
		return
	}
	for i := range want {
		c.walk(append(clone(p), segment{index: i}), want[i], have[i], true)
	}
}

func (c *comparer) add(p []segment, want, have any, removed bool) {
	f := Field{Path: pathString(p), Want: want, Live: have, Removed: removed,
		Secret: c.secret && len(p) > 0 && (p[0].field == "data" || p[0].field == "stringData")}
	if o, ok := ownerOf(c.owners, p); ok {
		f.Manager, f.Operation, f.Subresource, f.Time = o.manager, o.operation, o.subresource, o.time
	}
	c.out = append(c.out, f)
}

// owner is one managedFields entry.
type owner struct {
	manager, operation, subresource, time string
	fields                                map[string]any
	live                                  ports.Object
}

func owners(live ports.Object) []owner {
	meta, _ := live["metadata"].(map[string]any)
	entries, _ := meta["managedFields"].([]any)
	var out []owner
	for _, e := range entries {
		m, _ := e.(map[string]any)
		fields, _ := m["fieldsV1"].(map[string]any)
		if fields == nil {
			continue
		}
		o := owner{fields: fields, live: live}
		o.manager, _ = m["manager"].(string)
		o.operation, _ = m["operation"].(string)
		o.time, _ = m["time"].(string)
		o.subresource, _ = m["subresource"].(string)
		out = append(out, o)
	}
	return out
}

// ownerOf finds the entry whose fields cover the path: the one that names
// the field most precisely (a manager that wrote the field itself, rather than
// the map holding it), then the latest write.
func ownerOf(all []owner, p []segment) (owner, bool) {
	var best owner
	bestDepth := -1
	for _, o := range all {
		d := coverage(o.fields, p, map[string]any(o.live))
		if d > bestDepth || (d == bestDepth && d >= 0 && o.time > best.time) {
			best, bestDepth = o, d
		}
	}
	return best, bestDepth >= 0
}

// coverage walks a FieldsV1 set along a path: "f:NAME" for fields, "k:{...}"
// for list items by their key fields, "i:N" for indexes. A path is covered
// when the set reaches its end, or a leaf of the set on the way (a value owned
// whole); the result is how many steps of the path the set named, -1 when it
// does not cover the path.
func coverage(set map[string]any, p []segment, at any) int {
	for depth, s := range p {
		if len(set) == 0 {
			return depth
		}
		var next any
		switch {
		case s.field != "":
			next = set["f:"+s.field]
			m, _ := at.(map[string]any)
			at = m[s.field]
		case s.key != nil:
			list, _ := at.([]any)
			item, ok := findItem(list, s.key)
			if !ok {
				return -1
			}
			at = item
			next = nil
			for k, v := range set {
				if strings.HasPrefix(k, "k:") && keyMatches(k[2:], item) {
					next = v
					break
				}
			}
		default:
			next = set["i:"+strconv.Itoa(s.index)]
			list, _ := at.([]any)
			if s.index < len(list) {
				at = list[s.index]
			}
		}
		sub, ok := next.(map[string]any)
		if !ok {
			return -1
		}
		set = sub
	}
	return len(p)
}

// keyMatches reports whether a "k:" key's JSON fields all equal the item's.
func keyMatches(keyJSON string, item any) bool {
	var key map[string]any
	if json.Unmarshal([]byte(keyJSON), &key) != nil {
		return false
	}
	m, _ := item.(map[string]any)
	for k, v := range key {
		if !equal(v, m[k]) {
			return false
		}
	}
	return len(key) > 0
}

// listKeys learns from managedFields which fields key the items of each list,
// by the list's path with items left out (shape).
func listKeys(live ports.Object) map[string][]string {
	out := map[string][]string{}
	for _, o := range owners(live) {
		collectKeys(o.fields, "", out)
	}
	return out
}

func collectKeys(set map[string]any, prefix string, out map[string][]string) {
	for k, v := range set {
		sub, _ := v.(map[string]any)
		switch {
		case strings.HasPrefix(k, "f:"):
			collectKeys(sub, prefix+"."+k[2:], out)
		case strings.HasPrefix(k, "k:"):
			var key map[string]any
			if json.Unmarshal([]byte(k[2:]), &key) == nil && out[prefix] == nil {
				names := make([]string, 0, len(key))
				for n := range key {
					names = append(names, n)
				}
				sort.Strings(names)
				out[prefix] = names
			}
			collectKeys(sub, prefix+"[]", out)
		case strings.HasPrefix(k, "i:"):
			collectKeys(sub, prefix+"[]", out)
		}
	}
}

// shape is a path with its list items left out, as listKeys indexes lists.
func shape(p []segment) string {
	var b strings.Builder
	for _, s := range p {
		if s.field != "" {
			b.WriteString("." + s.field)
		} else {
			b.WriteString("[]")
		}
	}
	return b.String()
}

func findItem(list []any, key map[string]any) (any, bool) {
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		match := true
		for k, v := range key {
			if !equal(v, m[k]) {
				match = false
				break
			}
		}
		if match {
			return it, true
		}
	}
	return nil, false
}

// Zero reports whether a manifest value is one the API server leaves out of
// the objects it stores (omitempty): null, false, 0, "", and maps and lists
// of nothing else.
func Zero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case map[string]any:
		for _, e := range x {
			if !Zero(e) {
				return false
			}
		}
		return true
	case []any:
		return len(x) == 0
	}
	n, ok := Number(v)
	return ok && n == 0
}

// setsSomething reports whether a manifest value sets any field: nulls, and
// maps of nothing but nulls, do not.
func setsSomething(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case map[string]any:
		if len(x) == 0 {
			return true
		}
		for _, e := range x {
			if setsSomething(e) {
				return true
			}
		}
		return false
	}
	return true
}

func allMaps(l []any) bool {
	for _, it := range l {
		if _, ok := it.(map[string]any); !ok {
			return false
		}
	}
	return true
}

func allHave(l []any, key string) bool {
	if len(l) == 0 {
		return false
	}
	for _, it := range l {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m[key]; !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clone(p []segment) []segment { return append([]segment(nil), p...) }

// equal compares JSON values, numbers by value (manifests decode integers
// as float64 or int64 depending on the reader).
func equal(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, v := range av {
			w, ok := bv[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equal(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	an, aNum := Number(a)
	bn, bNum := Number(b)
	if aNum && bNum {
		return an == bn
	}
	// A quantity written as a YAML number (cpu: 1, cpu: 0.5) is stored as
	// the server's string ("1", "500m").
	as, aStr := a.(string)
	bs, bStr := b.(string)
	switch {
	case aNum && bStr:
		return sameQuantity(strconv.FormatFloat(an, 'f', -1, 64), bs)
	case aStr && bNum:
		return sameQuantity(as, strconv.FormatFloat(bn, 'f', -1, 64))
	case aStr && bStr && as != bs:
		return sameQuantity(as, bs)
	}
	return a == b
}

// sameQuantity reports whether two strings are the same resource quantity
// written differently ("0.1" and "100m"): the API server normalises them.
func sameQuantity(a, b string) bool {
	qa, err := resource.ParseQuantity(a)
	if err != nil {
		return false
	}
	qb, err := resource.ParseQuantity(b)
	return err == nil && qa.Cmp(qb) == 0
}

// Number reads a JSON number held as any Go numeric type (manifests decode
// integers as float64 or int64 depending on the reader).
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
