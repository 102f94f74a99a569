package schema

import "github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"

// schemaIndex maps each compiled subschema's location (as errors report it)
// to the subschema, so error causes can be related back to the keywords that
// produced them.
type schemaIndex map[string]*jsonschema.Schema

// indexSchemas walks everything reachable from root, refs included.
func indexSchemas(root *jsonschema.Schema) schemaIndex {
	idx := schemaIndex{}
	stack := []*jsonschema.Schema{root}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil {
			continue
		}
		if _, seen := idx[s.Location]; seen {
			continue
		}
		idx[s.Location] = s
		stack = append(stack, children(s)...)
	}
	return idx
}

// children lists the direct subschemas of s.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020,
		s.UnevaluatedItems, s.ContentSchema}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, c := range s.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range s.Dependencies {
		out = appendSchema(out, d)
	}
	out = appendSchema(out, s.AdditionalProperties)
	out = appendSchema(out, s.AdditionalItems)
	if items, ok := s.Items.([]*jsonschema.Schema); ok {
		out = append(out, items...)
	} else {
		out = appendSchema(out, s.Items)
	}
	return out
}

// appendSchema appends v when it holds a schema (several keywords also accept
// booleans or string lists).
func appendSchema(out []*jsonschema.Schema, v any) []*jsonschema.Schema {
	if c, ok := v.(*jsonschema.Schema); ok {
		out = append(out, c)
	}
	return out
}
