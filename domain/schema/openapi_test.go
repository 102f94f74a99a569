package schema

import (
	"context"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestCompileOpenAPI(t *testing.T) {
	const widget = `
type: object
properties:
  spec:
    type: object
    required: [size]
    properties:
      size: {type: integer, minimum: 1, maximum: 10, exclusiveMaximum: true}
      color: {type: string, enum: [red, blue], nullable: true}
      port: {x-kubernetes-int-or-string: true}
      labels: {type: object, additionalProperties: {type: string}}
      raw: {type: object, x-kubernetes-preserve-unknown-fields: true}
      template: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object}}}
      checks:
        type: array
        items: {type: object, properties: {name: {type: string}}}
        x-kubernetes-validations: [{rule: "self.size() < 3"}]
  status: {type: object, properties: {ready: {type: boolean}}}
`
	tests := map[string]struct {
		object string
		want   string // "" means valid
	}{
		"valid": {object: `
apiVersion: example.test/v1
kind: Widget
metadata: {name: a, namespace: prod, labels: {x: y}}
spec:
  size: 3
  color: null
  port: http
  labels: {a: b}
  raw: {anything: [1, 2]}
  template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {}}
  checks: [{name: a}, {name: b}, {name: c}]
status: {ready: true}
`},
		"an undeclared field is pruned": {
			object: "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 3, shape: round}\n",
			want:   "- at '/spec': additional properties 'shape' not allowed\n",
		},
		"a type that changed": {
			object: "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: \"3\"}\n",
			want:   "- at '/spec/size': got string, want integer\n",
		},
		"a required field": {
			object: "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: a}\nspec: {color: red}\n",
			want:   "- at '/spec': missing property 'size'\n",
		},
		"exclusive maximum": {
			object: "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 10}\n",
			want:   "- at '/spec/size': exclusiveMaximum: got 10, want 10\n",
		},
		"int or string": {
			object: "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 1, port: true}\n",
			want:   "- at '/spec/port': 'anyOf' failed\n  - at '/spec/port': got boolean, want integer\n  - at '/spec/port': got boolean, want string\n",
		},
		"enum": {
			object: "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 1, color: green}\n",
			want:   "- at '/spec/color': value must be one of 'red', 'blue', <nil>\n",
		},
	}
	var root map[string]any
	if err := yaml.Unmarshal([]byte(widget), &root); err != nil {
		t.Fatal(err)
	}
	s, err := CompileOpenAPI(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(tc.object), &obj); err != nil {
				t.Fatal(err)
			}
			err := s.Validate(context.Background(), obj)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("invalid: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("error = %q, want %q", err, tc.want)
			}
		})
	}
}
