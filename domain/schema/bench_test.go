package schema

import (
	"context"
	"testing"
)

// mediumSchema resembles a typical application chart's values schema.
const mediumSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "image": {"type": "object", "properties": {
      "repository": {"type": "string", "minLength": 1},
      "tag": {"type": "string"},
      "pullPolicy": {"enum": ["Always", "IfNotPresent", "Never"]}
    }, "required": ["repository"], "additionalProperties": false},
    "resources": {"type": "object", "properties": {
      "limits": {"$ref": "#/$defs/quantities"},
      "requests": {"$ref": "#/$defs/quantities"}
    }},
    "quantities": {"type": "object", "properties": {
      "cpu": {"type": ["string", "number"]},
      "memory": {"type": "string", "pattern": "^[0-9]+(Ki|Mi|Gi)?$"}
    }}
  },
  "properties": {
    "replicaCount": {"type": "integer", "minimum": 0},
    "image": {"$ref": "#/$defs/image"},
    "imagePullSecrets": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
    "nameOverride": {"type": "string"},
    "serviceAccount": {"type": "object", "properties": {
      "create": {"type": "boolean"}, "annotations": {"type": "object", "additionalProperties": {"type": "string"}}, "name": {"type": "string"}
    }},
    "service": {"type": "object", "properties": {
      "type": {"enum": ["ClusterIP", "NodePort", "LoadBalancer"]}, "port": {"type": "integer", "minimum": 1, "maximum": 65535}
    }, "required": ["port"]},
    "ingress": {"type": "object", "properties": {
      "enabled": {"type": "boolean"},
      "hosts": {"type": "array", "items": {"type": "object", "properties": {
        "host": {"type": "string", "format": "hostname"},
        "paths": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "pathType": {"enum": ["Prefix", "Exact", "ImplementationSpecific"]}}}}
      }}}
    }, "if": {"properties": {"enabled": {"const": true}}}, "then": {"required": ["hosts"]}},
    "resources": {"$ref": "#/$defs/resources"},
    "autoscaling": {"type": "object", "properties": {
      "enabled": {"type": "boolean"}, "minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}
    }},
    "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
    "tolerations": {"type": "array"},
    "affinity": {"type": "object"}
  },
  "required": ["image", "service"]
}`

func mediumValues() map[string]any {
	return map[string]any{
		"replicaCount":     int64(2),
		"image":            map[string]any{"repository": "nginx", "tag": "1.27", "pullPolicy": "IfNotPresent"},
		"imagePullSecrets": []any{map[string]any{"name": "regcred"}},
		"serviceAccount":   map[string]any{"create": true, "annotations": map[string]any{"a": "b"}, "name": ""},
		"service":          map[string]any{"type": "ClusterIP", "port": int64(80)},
		"ingress": map[string]any{"enabled": true, "hosts": []any{map[string]any{
			"host": "example.local", "paths": []any{map[string]any{"path": "/", "pathType": "Prefix"}},
		}}},
		"resources":    map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "128Mi"}},
		"autoscaling":  map[string]any{"enabled": false, "minReplicas": int64(1), "maxReplicas": int64(5)},
		"nodeSelector": map[string]any{},
		"tolerations":  []any{},
		"affinity":     map[string]any{},
	}
}

func BenchmarkValidate(b *testing.B) {
	schema, values := []byte(mediumSchema), mediumValues()
	if err := Validate(context.Background(), schema, values, nil, Limits{}); err != nil {
		b.Fatalf("medium values should be valid: %v", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Validate(context.Background(), schema, values, nil, Limits{})
	}
}

func BenchmarkCompiledValidate(b *testing.B) {
	s, err := Compile([]byte(mediumSchema), nil, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	values := mediumValues()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Validate(context.Background(), values)
	}
}

func BenchmarkValidateFailing(b *testing.B) {
	schema, values := []byte(mediumSchema), mediumValues()
	values["service"] = map[string]any{"type": "Other", "port": "80"}
	values["image"] = map[string]any{"tag": int64(1), "extra": true}
	b.ReportAllocs()
	for b.Loop() {
		_ = Validate(context.Background(), schema, values, nil, Limits{})
	}
}
