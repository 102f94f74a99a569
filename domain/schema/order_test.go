package schema

import (
	"context"
	"testing"
)

// Helm lists these violations in an order that changes from run to run (the
// library ranges over Go maps). Each expected text is one Helm v3.22 printed;
// ours must always be that same one.
func TestValidateOrderIsDeterministic(t *testing.T) {
	str := `{"type":"string"}`
	ints := func(keys ...string) map[string]any {
		m := map[string]any{}
		for i, k := range keys {
			m[k] = int64(i + 1)
		}
		return m
	}
	tests := map[string]struct {
		schema string
		values map[string]any
		want   string
	}{
		"sibling properties": {
			schema: `{"properties":{"a":` + str + `,"b":` + str + `,"c":` + str + `,"d":` + str + `}}`,
			values: ints("d", "b", "c", "a"),
			want:   "- at '/a': got number, want string\n- at '/b': got number, want string\n- at '/c': got number, want string\n- at '/d': got number, want string\n",
		},
		"properties of a single failing object": {
			schema: `{"properties":{"image":{"properties":{"tag":` + str + `,"repository":` + str + `,"pullPolicy":{"enum":["Always","IfNotPresent"]}}}}}`,
			values: map[string]any{"image": map[string]any{"tag": int64(1), "repository": int64(2), "pullPolicy": "x"}},
			want:   "- at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent'\n- at '/image/repository': got number, want string\n- at '/image/tag': got number, want string\n",
		},
		"fixed positions kept around sorted properties": {
			schema: `{"required":["zz"],"additionalProperties":false,"properties":{"q":{},"b":` + str + `,"a":{"properties":{"x":` + str + `,"w":` + str + `}}}}`,
			values: map[string]any{"a": ints("x", "w"), "b": int64(3), "k": int64(1), "j": int64(2), "m": int64(3)},
			want: "- at '': missing property 'zz'\n- at '/a': validation failed\n  - at '/a/w': got number, want string\n  - at '/a/x': got number, want string\n" +
				"- at '/b': got number, want string\n- at '': additional properties 'j', 'k', 'm' not allowed\n",
		},
		"properties and patternProperties on one member": {
			schema: `{"patternProperties":{"^a":` + str + `,"b$":` + str + `,"^.*$":{"maximum":0}},"properties":{"ab":{"type":"boolean"}}}`,
			values: map[string]any{"ab": int64(1), "ab2": int64(2), "xb": int64(3), "q": int64(4)},
			want: "- at '/ab': got number, want boolean\n- at '/ab': maximum: got 1, want 0\n- at '/ab': got number, want string\n- at '/ab': got number, want string\n" +
				"- at '/ab2': maximum: got 2, want 0\n- at '/ab2': got number, want string\n- at '/q': maximum: got 4, want 0\n- at '/xb': maximum: got 3, want 0\n- at '/xb': got number, want string\n",
		},
		"unevaluatedProperties after properties": {
			schema: `{"properties":{"z":` + str + `},"unevaluatedProperties":false}`,
			values: ints("z", "b", "c", "a"),
			want:   "- at '/z': got number, want string\n- at '/a': false schema\n- at '/b': false schema\n- at '/c': false schema\n",
		},
		"unevaluatedItems by index": {
			schema: `{"properties":{"l":{"prefixItems":[` + str + `],"unevaluatedItems":` + str + `}}}`,
			values: map[string]any{"l": []any{int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7), int64(8), int64(9), int64(10)}},
			want: "- at '/l/0': got number, want string\n- at '/l/1': got number, want string\n- at '/l/2': got number, want string\n- at '/l/3': got number, want string\n" +
				"- at '/l/4': got number, want string\n- at '/l/5': got number, want string\n- at '/l/6': got number, want string\n- at '/l/7': got number, want string\n" +
				"- at '/l/8': got number, want string\n- at '/l/9': got number, want string\n- at '/l/10': got number, want string\n",
		},
		"draft-07 dependencies": {
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["x"],"b":["w"],"c":{"required":["z"]}}}`,
			values: ints("a", "b", "c"),
			want:   "- at '': properties 'x' required, if 'a' exists\n- at '': properties 'w' required, if 'b' exists\n- at '': missing property 'z'\n",
		},
		"propertyNames": {
			schema: `{"propertyNames":{"maxLength":1}}`,
			values: ints("cc", "aa", "dd", "bb"),
			want: "- at '': invalid propertyName 'aa'\n  - at '': maxLength: got 2, want 1\n- at '': invalid propertyName 'bb'\n  - at '': maxLength: got 2, want 1\n" +
				"- at '': invalid propertyName 'cc'\n  - at '': maxLength: got 2, want 1\n- at '': invalid propertyName 'dd'\n  - at '': maxLength: got 2, want 1\n",
		},
		"then branch": {
			schema: `{"if":{"required":["a"]},"then":{"properties":{"b":` + str + `,"c":` + str + `}}}`,
			values: ints("a", "c", "b"),
			want:   "- at '/b': got number, want string\n- at '/c': got number, want string\n",
		},
		"through a $ref": {
			schema: `{"$defs":{"v":{"properties":{"tag":` + str + `,"repository":` + str + `}}},"$ref":"#/$defs/v"}`,
			values: ints("tag", "repository"),
			want:   "- at '': validation failed\n  - at '/repository': got number, want string\n  - at '/tag': got number, want string\n",
		},
		"metaschema violations": {
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"b":{"type":6},"a":{"type":5}}}`,
			want: "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-07/schema#'\n" +
				"- at '/properties/a/type': 'anyOf' failed\n  - at '/properties/a/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n  - at '/properties/a/type': got number, want array\n" +
				"- at '/properties/b/type': 'anyOf' failed\n  - at '/properties/b/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n  - at '/properties/b/type': got number, want array",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for range 20 {
				if got := errText(Validate(context.Background(), []byte(tc.schema), tc.values, nil, Limits{})); got != tc.want {
					t.Fatalf("Validate() error:\n got %q\nwant %q", got, tc.want)
				}
			}
		})
	}
}
