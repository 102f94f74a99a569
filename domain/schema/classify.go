package schema

import (
	"slices"
	"sort"
	"strconv"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema/kind"
)

// origin tells which map-driven loop of the producing validator emitted a
// violation; group "" means its position is fixed.
type origin struct {
	group string
	key   string
	rank  int    // within one property: properties, patternProperties, additionalProperties
	sub   string // the pattern, when several patterns match one property
}

// sortCauses sorts each run of causes emitted by one map-driven loop.
func sortCauses(causes []*jsonschema.ValidationError, sch *jsonschema.Schema, loc []string) {
	type entry struct {
		c *jsonschema.ValidationError
		o origin
	}
	entries := make([]entry, len(causes))
	for i, c := range causes {
		entries[i] = entry{c, classify(c, sch, loc)}
	}
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[i].o.group != "" && entries[j].o.group == entries[i].o.group {
			j++
		}
		run := entries[i:j]
		sort.SliceStable(run, func(a, b int) bool { return run[a].o.less(run[b].o) })
		i = j
	}
	for i := range entries {
		causes[i] = entries[i].c
	}
}

func (o origin) less(p origin) bool {
	if o.key != p.key {
		if o.group == "unevaluatedItems" {
			a, _ := strconv.Atoi(o.key)
			b, _ := strconv.Atoi(p.key)
			return a < b
		}
		return o.key < p.key
	}
	if o.rank != p.rank {
		return o.rank < p.rank
	}
	return o.sub < p.sub
}

// classify finds the origin of c, a violation found while validating the
// value at loc against sch.
func classify(c *jsonschema.ValidationError, sch *jsonschema.Schema, loc []string) origin {
	cl := c.InstanceLocation
	if len(cl) < len(loc) || !slices.Equal(cl[:len(loc)], loc) {
		return origin{}
	}
	if len(cl) > len(loc) {
		return classifyMember(c.SchemaURL, sch, cl[len(loc)])
	}
	switch k := c.ErrorKind.(type) {
	case *kind.PropertyNames:
		if sch.PropertyNames != nil && c.SchemaURL == sch.PropertyNames.Location {
			return origin{group: "propertyNames", key: k.Property}
		}
	case *kind.Dependency:
		if c.SchemaURL == sch.Location {
			return origin{group: "dependencies", key: k.Prop}
		}
	case *kind.DependentRequired:
		if c.SchemaURL == sch.Location {
			return origin{group: "dependentRequired", key: k.Prop}
		}
	}
	for p, d := range sch.Dependencies {
		if ds, ok := d.(*jsonschema.Schema); ok && under(c.SchemaURL, ds.Location) {
			return origin{group: "dependencies", key: p}
		}
	}
	for p, ds := range sch.DependentSchemas {
		if under(c.SchemaURL, ds.Location) {
			return origin{group: "dependentSchemas", key: p}
		}
	}
	return origin{}
}

// classifyMember finds the origin of a violation inside member tok.
func classifyMember(url string, sch *jsonschema.Schema, tok string) origin {
	if p := sch.Properties[tok]; p != nil && under(url, p.Location) {
		return origin{group: "properties", key: tok, rank: 0}
	}
	for re, p := range sch.PatternProperties {
		if under(url, p.Location) {
			return origin{group: "properties", key: tok, rank: 1, sub: re.String()}
		}
	}
	if p, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok && under(url, p.Location) {
		return origin{group: "properties", key: tok, rank: 2}
	}
	if p := sch.UnevaluatedProperties; p != nil && under(url, p.Location) {
		return origin{group: "unevaluatedProperties", key: tok}
	}
	if p := sch.UnevaluatedItems; p != nil && under(url, p.Location) {
		return origin{group: "unevaluatedItems", key: tok}
	}
	return origin{}
}
