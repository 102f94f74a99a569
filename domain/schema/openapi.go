package schema

import (
	"encoding/json"
	"strings"
)

// CompileOpenAPI compiles a CustomResourceDefinition version's
// openAPIV3Schema for validating custom resources as the API server keeps
// them. Kubernetes' structural schemas are OpenAPI 3.0 schemas with
// extensions; they are translated into JSON Schema (2020-12) and checked by
// the same validator as values:
//
//   - nullable: true also allows null;
//   - x-kubernetes-int-or-string: true allows an integer or a string;
//   - exclusiveMinimum/exclusiveMaximum are OpenAPI 3.0's booleans;
//   - a field the schema does not declare is pruned by the API server, its
//     data lost: it is a violation ("additional properties ... not allowed"),
//     unless x-kubernetes-preserve-unknown-fields: true;
//   - apiVersion, kind and metadata of the object, and of embedded resources
//     (x-kubernetes-embedded-resource), are the server's to check.
//
// Not checked: x-kubernetes-validations (CEL rules), formats, list types
// (x-kubernetes-list-type) and defaults.
func CompileOpenAPI(openAPIV3Schema map[string]any) (*Schema, error) {
	b, err := json.Marshal(fromOpenAPI(openAPIV3Schema, true))
	if err != nil {
		return nil, &SchemaError{Op: "translating", Err: err}
	}
	return Compile(b, nil, Limits{})
}

// fromOpenAPI translates one node; resource says the node is an object with
// apiVersion, kind and metadata (the root, or an embedded resource).
func fromOpenAPI(node map[string]any, resource bool) map[string]any {
	out := make(map[string]any, len(node)+1)
	for k, v := range node {
		switch {
		case k == "properties":
			props, _ := v.(map[string]any)
			t := make(map[string]any, len(props))
			for name, p := range props {
				if pm, ok := p.(map[string]any); ok {
					t[name] = fromOpenAPI(pm, false)
				}
			}
			out[k] = t
		case k == "items" || k == "not" || k == "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				out[k] = fromOpenAPI(m, false)
			} else if b, ok := v.(bool); ok && k == "additionalProperties" {
				out[k] = b
			}
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			list, _ := v.([]any)
			t := make([]any, 0, len(list))
			for _, it := range list {
				if m, ok := it.(map[string]any); ok {
					t = append(t, fromOpenAPI(m, false))
				}
			}
			out[k] = t
		case k == "exclusiveMinimum" || k == "exclusiveMaximum":
			// OpenAPI 3.0: a boolean that makes minimum/maximum exclusive.
		case k == "nullable" || k == "default" || k == "format" || k == "example" || k == "externalDocs" ||
			k == "description" || k == "title" || strings.HasPrefix(k, "x-"):
		default:
			out[k] = v
		}
	}
	for _, bound := range []string{"minimum", "maximum"} {
		excl := "exclusive" + strings.ToUpper(bound[:1]) + bound[1:]
		if node[excl] == true && node[bound] != nil {
			out[excl] = node[bound]
			delete(out, bound)
		}
	}
	if node["x-kubernetes-int-or-string"] == true {
		delete(out, "type")
		if _, ok := out["anyOf"]; !ok {
			out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
	}
	if node["nullable"] == true {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
		if enum, ok := out["enum"].([]any); ok {
			out["enum"] = append(append([]any(nil), enum...), nil)
		}
	}
	resource = resource || node["x-kubernetes-embedded-resource"] == true
	if resource {
		props, _ := out["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		for _, f := range []string{"apiVersion", "kind", "metadata"} {
			props[f] = map[string]any{}
		}
		out["properties"] = props
	}
	_, declared := out["additionalProperties"]
	object := out["type"] == "object" || out["properties"] != nil
	if object && !declared && node["x-kubernetes-preserve-unknown-fields"] != true {
		out["additionalProperties"] = false
	}
	return out
}
