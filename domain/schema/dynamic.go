package schema

import (
	"strconv"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
)

// dynamic resolves $recursiveRef and $dynamicRef for work the way the validator
// does: through the resources (the document, or a subschema with an $id) of
// the schemas in scope, the outermost first. The compiled schemas do not tell
// their resource, so it is found from the documents: a schema's resource is
// the nearest one enclosing its location.
type dynamic struct {
	// roots holds the location of each resource.
	roots map[string]bool
	// recursive holds the resources whose root has "$recursiveAnchor": true.
	recursive map[string]bool
	// anchors maps a resource and a "$dynamicAnchor" name in it to its schema.
	anchors map[string]map[string]*jsonschema.Schema
}

// newDynamic indexes the resources of docs (URL to decoded document), finding
// each schema through c, which compiled them.
func newDynamic(c *jsonschema.Compiler, docs map[string]any) *dynamic {
	var found []located
	for url, doc := range docs {
		walkObjects(doc, "", func(ptr string, obj map[string]any) {
			if id, ok := obj["$id"].(string); ptr == "" || ok && !strings.HasPrefix(id, "#") ||
				obj["$recursiveAnchor"] == true || obj["$dynamicAnchor"] != nil {
				found = append(found, located{url, ptr, obj})
			}
		})
	}
	d := &dynamic{roots: map[string]bool{}, recursive: map[string]bool{}, anchors: map[string]map[string]*jsonschema.Schema{}}
	for _, f := range found {
		s, err := c.Compile(f.url + "#" + f.ptr)
		if err != nil {
			continue // not a subschema
		}
		if id, ok := f.obj["$id"].(string); f.ptr == "" || ok && !strings.HasPrefix(id, "#") {
			d.roots[s.Location] = true
			if s.RecursiveAnchor {
				d.recursive[s.Location] = true
			}
		}
		if s.DynamicAnchor != "" && s.DraftVersion >= 2020 {
			res := d.resourceOf(s.Location)
			if d.anchors[res] == nil {
				d.anchors[res] = map[string]*jsonschema.Schema{}
			}
			d.anchors[res][s.DynamicAnchor] = s
		}
	}
	return d
}

type located struct {
	url, ptr string
	obj      map[string]any
}

// walkObjects calls fn with each object of v and its JSON pointer.
func walkObjects(v any, ptr string, fn func(string, map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(ptr, x)
		for k, c := range x {
			walkObjects(c, ptr+"/"+escapeToken(k), fn)
		}
	case []any:
		for i, c := range x {
			walkObjects(c, ptr+"/"+strconv.Itoa(i), fn)
		}
	}
}

// resourceOf is the location of the resource holding the schema at loc:
// resources hold everything below them but other resources.
func (d *dynamic) resourceOf(loc string) string {
	for {
		if d.roots[loc] {
			return loc
		}
		i := strings.LastIndexByte(loc, '/')
		if i < 0 || !strings.Contains(loc[:i], "#") {
			url, _, _ := strings.Cut(loc, "#")
			return url + "#"
		}
		loc = loc[:i]
	}
}

// recursiveTarget is where the validator's $recursiveRef goes: the outermost
// schema in scope whose resource has a recursive anchor.
func (d *dynamic) recursiveTarget(scope []scoped, fallback *jsonschema.Schema) *jsonschema.Schema {
	if d == nil {
		return fallback
	}
	for _, e := range scope {
		if d.recursive[d.resourceOf(e.s.Location)] {
			return e.s
		}
	}
	return fallback
}

// dynamicTarget is where the validator's $dynamicRef to name goes: the
// anchor of that name in the outermost resource in scope that has one.
func (d *dynamic) dynamicTarget(scope []scoped, name string, fallback *jsonschema.Schema) *jsonschema.Schema {
	if d == nil {
		return fallback
	}
	for _, e := range scope {
		if s, ok := d.anchors[d.resourceOf(e.s.Location)][name]; ok {
			return s
		}
	}
	return fallback
}

func escapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
