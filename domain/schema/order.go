package schema

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema/kind"
)

// The library collects some violations while ranging over Go maps (an
// object's properties, unevaluated properties/items, dependencies,
// propertyNames, the names in "additional properties ... not allowed"), so
// Helm lists those in a different order from run to run. canonicalize sorts
// exactly those groups, by property name or item index, and keeps every other
// order as the library produced it: our text is always one Helm can print,
// and always the same one.
func canonicalize(top *jsonschema.ValidationError, root *jsonschema.Schema) {
	idx := schemaIndex{}
	if root != nil {
		idx = indexSchemas(root)
	}
	idx.canonicalizeCauses(top, root)
}

// canonicalizeSchemaErr does the same for a schema that failed validation
// against its metaschema; custom metaschemas (not embedded) are left as they are.
func canonicalizeSchemaErr(err error) {
	var se *jsonschema.SchemaValidationError
	if !errors.As(err, &se) {
		return
	}
	var verr *jsonschema.ValidationError
	if !errors.As(se.Err, &verr) {
		return
	}
	var meta *jsonschema.Schema
	if k, ok := verr.ErrorKind.(*kind.Schema); ok && isEmbeddedMeta(k.Location) {
		meta, _ = jsonschema.NewCompiler().Compile(k.Location)
	}
	canonicalize(verr, meta)
}

// isEmbeddedMeta guards against the compiler reaching for a loader.
func isEmbeddedMeta(url string) bool {
	return strings.HasPrefix(url, "https://json-schema.org/") || strings.HasPrefix(url, "http://json-schema.org/")
}

// canonicalizeCauses orders e's causes, produced by validating at e's
// instance location against start (nil when unknown), then recurses.
func (idx schemaIndex) canonicalizeCauses(e *jsonschema.ValidationError, start *jsonschema.Schema) {
	if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		slices.Sort(ap.Properties)
	}
	if start != nil && len(e.Causes) > 1 {
		sch, loc := producer(e.Causes, start, e.InstanceLocation)
		sortCauses(e.Causes, sch, loc)
	}
	for _, c := range e.Causes {
		var next *jsonschema.Schema
		switch k := c.ErrorKind.(type) {
		case *kind.Group:
			next = idx[c.SchemaURL]
		case *kind.Reference:
			next = idx[k.URL]
		}
		idx.canonicalizeCauses(c, next)
	}
}

// producer finds which subschema, at which location, produced all of causes.
// The library hands up a lone error unwrapped, so a list may come from a
// subschema below start (a single failing property whose own value has
// several violations): descend while every cause points to the same one.
func producer(causes []*jsonschema.ValidationError, sch *jsonschema.Schema, loc []string) (*jsonschema.Schema, []string) {
	for {
		var next *jsonschema.Schema
		var nextLoc []string
		for i, c := range causes {
			cs, cl := subValidator(c, sch, loc)
			if cs == nil || (i > 0 && (cs != next || !slices.Equal(cl, nextLoc))) {
				return sch, loc
			}
			next, nextLoc = cs, cl
		}
		sch, loc = next, nextLoc
	}
}

// subValidator returns the subschema of sch (and its instance location) whose
// own validation produced c, or nil when c is sch's own violation.
func subValidator(c *jsonschema.ValidationError, sch *jsonschema.Schema, loc []string) (*jsonschema.Schema, []string) {
	cl := c.InstanceLocation
	if len(cl) < len(loc) || !slices.Equal(cl[:len(loc)], loc) {
		return nil, nil
	}
	// then/else and friends validate the same value, yet may pass up a
	// violation found deeper inside it.
	if cand := containing(c.SchemaURL, sameValueSchemas(sch)); cand != nil {
		return cand, loc
	}
	if len(cl) > len(loc) {
		if cand := containing(c.SchemaURL, childSchemas(sch, cl[len(loc)])); cand != nil {
			return cand, cl[:len(loc)+1]
		}
	}
	return nil, nil
}

// containing returns the candidate whose location holds url.
func containing(url string, cands []*jsonschema.Schema) *jsonschema.Schema {
	for _, cand := range cands {
		if cand != nil && under(url, cand.Location) {
			return cand
		}
	}
	return nil
}

// childSchemas lists the subschemas sch applies to its member tok.
func childSchemas(sch *jsonschema.Schema, tok string) []*jsonschema.Schema {
	out := []*jsonschema.Schema{sch.Properties[tok], sch.UnevaluatedProperties, sch.Items2020, sch.UnevaluatedItems}
	for re, c := range sch.PatternProperties {
		if re.MatchString(tok) {
			out = append(out, c)
		}
	}
	out = appendSchema(out, sch.AdditionalProperties)
	out = appendSchema(out, sch.AdditionalItems)
	out = appendSchema(out, sch.Items)
	if i, err := strconv.Atoi(tok); err == nil && i >= 0 {
		if items, ok := sch.Items.([]*jsonschema.Schema); ok && i < len(items) {
			out = append(out, items[i])
		}
		if i < len(sch.PrefixItems) {
			out = append(out, sch.PrefixItems[i])
		}
	}
	return out
}

// sameValueSchemas lists the subschemas whose violations the library passes
// up unwrapped while validating the same value.
func sameValueSchemas(sch *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{sch.Then, sch.Else}
	for _, c := range sch.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range sch.Dependencies {
		out = appendSchema(out, d)
	}
	return out
}

// under reports whether url is loc or a location inside it.
func under(url, loc string) bool {
	return url == loc || strings.HasPrefix(url, loc+"/")
}
