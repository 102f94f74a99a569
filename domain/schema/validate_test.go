package schema

import (
	"context"
	"errors"
	"testing"
)

// Expected texts were produced by Helm v3.22's chartutil.ValidateAgainstSingleSchema
// on the same schema and the same values read from YAML.
func TestValidate(t *testing.T) {
	tests := map[string]struct {
		schema string
		values map[string]any
		want   string // "" means valid
	}{
		"valid values": {
			schema: `{"type":"object","properties":{"name":{"type":"string"},"replicas":{"type":"integer","minimum":1}},"required":["name"]}`,
			values: map[string]any{"name": "web", "replicas": int64(3)},
		},
		"type mismatch": {
			schema: `{"properties":{"image":{"properties":{"tag":{"type":"string"}}}}}`,
			values: map[string]any{"image": map[string]any{"tag": int64(1)}},
			want:   "- at '/image/tag': got number, want string\n",
		},
		"missing required property": {
			schema: `{"type":"object","properties":{"age":{"type":"integer"}},"required":["age"]}`,
			values: map[string]any{"name": "John"},
			want:   "- at '': missing property 'age'\n",
		},
		"missing required properties and a minimum": {
			schema: `{"properties":{"age":{"minimum":0}},"required":["employmentInfo","age"]}`,
			values: map[string]any{"age": int64(-5)},
			want:   "- at '': missing property 'employmentInfo'\n- at '/age': minimum: got -5, want 0\n",
		},
		"additionalProperties false": {
			schema: `{"additionalProperties":false,"properties":{"a":{}}}`,
			values: map[string]any{"a": int64(1), "c": int64(3), "b": int64(2)},
			want:   "- at '': additional properties 'b', 'c' not allowed\n",
		},
		"enum": {
			schema: `{"properties":{"a":{"enum":["x","y",1]}}}`,
			values: map[string]any{"a": "z"},
			want:   "- at '/a': value must be one of 'x', 'y', 1\n",
		},
		"const": {
			schema: `{"properties":{"a":{"const":{"k":1}}}}`,
			values: map[string]any{"a": "z"},
			want:   "- at '/a': 'const' failed\n",
		},
		"oneOf matching twice": {
			schema: `{"properties":{"a":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`,
			values: map[string]any{"a": int64(1)},
			want:   "- at '/a': 'oneOf' failed, subschemas 0, 1 matched\n",
		},
		"anyOf lists each failed branch": {
			schema: `{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
			values: map[string]any{"a": 1.5},
			want:   "- at '/a': 'anyOf' failed\n  - at '/a': got number, want string\n  - at '/a': got number, want integer\n",
		},
		"draft-04": {
			schema: `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"string","maxLength":2}},"required":["b","c"]}`,
			values: map[string]any{"a": int64(1)},
			want:   "- at '': missing properties 'b', 'c'\n- at '/a': got number, want string\n",
		},
		"draft-04 boolean exclusiveMinimum": {
			schema: `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"number","minimum":5,"exclusiveMinimum":true}}}`,
			values: map[string]any{"a": int64(5)},
			want:   "- at '/a': exclusiveMinimum: got 5, want 5\n",
		},
		"draft-06": {
			schema: `{"$schema":"http://json-schema.org/draft-06/schema#","properties":{"a":{"const":3}},"propertyNames":{"pattern":"^[a-z]+$"}}`,
			values: map[string]any{"a": int64(4), "B": int64(1)},
			want:   "- at '/a': value must be 3\n- at '': invalid propertyName 'B'\n  - at '': 'B' does not match pattern '^[a-z]+$'\n",
		},
		"draft-07 asserts format": {
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"format":"email"}}}`,
			values: map[string]any{"a": "nope"},
			want:   "- at '/a': 'nope' is not valid email: missing @\n",
		},
		"draft 2019-09": {
			schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"a":{"dependentRequired":{"x":["z"]}}}}`,
			values: map[string]any{"a": map[string]any{"x": int64(1)}},
			want:   "- at '/a': properties 'z' required, if 'x' exists\n",
		},
		"draft 2020-12 does not assert format": {
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"format":"email"}}}`,
			values: map[string]any{"a": "nope"},
		},
		"draft 2020-12 contains": {
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"data":{"type":"array","contains":{"type":"string"},"unevaluatedItems":{"type":"number"}}},"required":["data"]}`,
			values: map[string]any{"data": []any{int64(12)}},
			want:   "- at '/data': no items match contains schema\n  - at '/data/0': got number, want string\n",
		},
		"no $schema means 2020-12": {
			schema: `{"properties":{"data":{"prefixItems":[{"type":"string"}],"items":false}}}`,
			values: map[string]any{"data": []any{"a", "b"}},
			want:   "- at '/data/1': false schema\n",
		},
		"schema not valid JSON": {
			schema: `{`,
			want:   "unexpected EOF",
		},
		"schema with a syntax error": {
			schema: `{"a":}`,
			want:   "invalid character '}' looking for beginning of value",
		},
		"empty schema file": {
			schema: ``,
			want:   "EOF",
		},
		"schema with trailing data": {
			schema: `{} {}`,
			want:   "invalid character after top-level value",
		},
		"schema invalid against its metaschema": {
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":5}}`,
			want: "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n" +
				"- at '': 'allOf' failed\n  - at '/properties/a': got number, want boolean or object",
		},
		"$ref within the same document (2020-12)": {
			schema: `{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`,
			values: map[string]any{"a": int64(1)},
			want:   "- at '/a': got number, want string\n",
		},
		"$ref within the same document (draft-07)": {
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`,
			values: map[string]any{"a": int64(1)},
			want:   "- at '/a': got number, want string\n",
		},
		"$ref to a missing pointer": {
			schema: `{"$ref":"#/$defs/nope"}`,
			want:   `json-pointer in "file:///values.schema.json#/$defs/nope" not found`,
		},
		"--set integer beyond 2^53 compared exactly, shown as a float": {
			schema: `{"properties":{"a":{"maximum":9007199254740992}}}`,
			values: map[string]any{"a": int64(9007199254740993)},
			want:   "- at '/a': maximum: got 9.007199254740992×10¹⁵, want 9.007199254740992×10¹⁵\n",
		},
		"YAML integer beyond 2^53 already rounded by the parser": {
			schema: `{"properties":{"a":{"maximum":9007199254740992}}}`,
			values: map[string]any{"a": float64(9007199254740993)},
		},
		"huge YAML integer": {
			schema: `{"properties":{"a":{"maximum":10,"type":"integer"}}}`,
			values: map[string]any{"a": 123456789012345678901234.0},
			want:   "- at '/a': maximum: got 1.2345678901234569×10²³, want 10\n",
		},
		"whole float is an integer": {
			schema: `{"properties":{"a":{"type":"integer"}}}`,
			values: map[string]any{"a": 1.0},
		},
		"nil values are an empty object": {
			schema: `{"type":"array"}`,
			want:   "- at '': got object, want array\n",
		},
		"boolean schema false": {
			schema: `false`,
			values: map[string]any{"a": int64(1)},
			want:   "- at '': false schema\n",
		},
		"reference cycle": {
			schema: `{"properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"b":{"$ref":"#/$defs/a"},"a":{"$ref":"#/$defs/b"}}}`,
			values: map[string]any{"a": int64(1)},
			want:   "- at '/a': both /properties/a/$ref/$ref/$ref and /properties/a/$ref resolve to \"file:///values.schema.json#/$defs/b\" causing reference cycle\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := Validate(context.Background(), []byte(tc.schema), tc.values, nil, Limits{})
			if got := errText(err); got != tc.want {
				t.Errorf("Validate() error:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestValidateErrorTypes(t *testing.T) {
	tests := map[string]struct {
		schema string
		check  func(error) bool
	}{
		"violation": {`{"type":"string"}`, func(err error) bool {
			var v *ValidationError
			return errors.As(err, &v)
		}},
		"unparsable schema": {`{`, func(err error) bool {
			var s *SchemaError
			return errors.As(err, &s) && s.Op == "parsing"
		}},
		"uncompilable schema": {`{"$ref":"#/nope"}`, func(err error) bool {
			var s *SchemaError
			return errors.As(err, &s) && s.Op == "compiling"
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := Validate(context.Background(), []byte(tc.schema), nil, nil, Limits{}); !tc.check(err) {
				t.Errorf("unexpected error %T: %v", err, err)
			}
		})
	}
}

func TestCompiledSchemaIsReusable(t *testing.T) {
	s, err := Compile([]byte(`{"properties":{"a":{"type":"string"}}}`), nil, Limits{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	for range 3 {
		if err := s.Validate(context.Background(), map[string]any{"a": "ok"}); err != nil {
			t.Fatalf("Validate(valid): %v", err)
		}
		if got, want := errText(s.Validate(context.Background(), map[string]any{"a": int64(1)})), "- at '/a': got number, want string\n"; got != want {
			t.Fatalf("Validate(invalid) = %q, want %q", got, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCompiledSchemaConcurrentUse(t *testing.T) {
	s, err := Compile([]byte(`{"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`), nil, Limits{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	const want = "- at '/a': got number, want string\n- at '/b': got number, want string\n"
	done := make(chan string)
	for range 8 {
		go func() { done <- errText(s.Validate(context.Background(), map[string]any{"a": 1.0, "b": 2.0})) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("Validate() = %q, want %q", got, want)
		}
	}
}
