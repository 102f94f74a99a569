package schema

import (
	"context"
	"testing"
)

const ageSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"age":{"type":"integer","minimum":0}},"required":["age"]}`

// Expected texts were produced by Helm v3.22's ToRenderValuesWithSchemaValidation
// (ValidateAgainstSchema plus its prefix) on the same chart tree and values.
func TestValidateTree(t *testing.T) {
	tree := func(rootSchema string, values map[string]any) ChartSchema {
		var rs []byte
		if rootSchema != "" {
			rs = []byte(rootSchema)
		}
		return ChartSchema{
			ChartName: "chrt",
			Schema:    rs,
			Values:    values,
			Subcharts: []ChartSchema{
				{ChartName: "subchart", Schema: []byte(ageSchema), Subcharts: []ChartSchema{
					{ChartName: "grand", Schema: []byte(ageSchema)},
				}},
				{ChartName: "other", Schema: []byte(ageSchema)},
			},
		}
	}
	const rootSchema = `{"properties":{"name":{"type":"string"}}}`
	const header = "values don't meet the specifications of the schema(s) in the following chart(s):\n"
	tests := map[string]struct {
		root ChartSchema
		want string
	}{
		"valid values": {
			root: tree(rootSchema, map[string]any{"name": "John", "subchart": map[string]any{"age": int64(25)}}),
		},
		"subchart without values is skipped": {
			root: tree(rootSchema, map[string]any{"name": "John"}),
		},
		"null subchart values are skipped": {
			root: tree(rootSchema, map[string]any{"subchart": nil}),
		},
		"subchart missing a required property": {
			root: tree("", map[string]any{"name": "John", "subchart": map[string]any{}}),
			want: header + "subchart:\n- at '': missing property 'age'\n",
		},
		"nested subchart errors combined in order": {
			root: tree(rootSchema, map[string]any{
				"name":     int64(1),
				"subchart": map[string]any{"age": int64(-1), "grand": map[string]any{"age": "x"}},
				"other":    map[string]any{"age": true},
			}),
			want: header + "chrt:\n- at '/name': got number, want string\n" +
				"subchart:\n- at '/age': minimum: got -1, want 0\n" +
				"grand:\n- at '/age': got string, want integer\n" +
				"other:\n- at '/age': got boolean, want integer\n",
		},
		"subchart values of the wrong type": {
			root: tree("", map[string]any{"subchart": "oops", "other": 5.0}),
			want: header + "subchart:\ninvalid type for values: expected object (map), got string\n" +
				"other:\ninvalid type for values: expected object (map), got float64\n",
		},
		"subchart values from --set keep their type": {
			root: tree("", map[string]any{"subchart": int64(5)}),
			want: header + "subchart:\ninvalid type for values: expected object (map), got int64\n",
		},
		"grandchild values of the wrong type": {
			root: tree("", map[string]any{"subchart": map[string]any{"age": int64(1), "grand": []any{int64(1)}}}),
			want: header + "grand:\ninvalid type for values: expected object (map), got []interface {}\n",
		},
		"unparsable root schema does not stop subcharts": {
			root: tree("{", map[string]any{"subchart": map[string]any{}}),
			// Helm adds no newline after a schema error, so the next chart follows directly.
			want: header + "chrt:\nunexpected EOFsubchart:\n- at '': missing property 'age'\n",
		},
		"root with an empty schema file": {
			root: ChartSchema{ChartName: "chrt", Schema: []byte{}},
			want: header + "chrt:\nEOF",
		},
		"root without schema or subcharts": {
			root: ChartSchema{ChartName: "chrt", Values: map[string]any{"a": int64(1)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := ValidateTree(context.Background(), tc.root, nil, Limits{})
			if got := errText(err); got != tc.want {
				t.Errorf("ValidateTree() error:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestValidateTreeErrorDetails(t *testing.T) {
	root := ChartSchema{ChartName: "app", Schema: []byte(ageSchema), Values: map[string]any{}}
	err := ValidateTree(context.Background(), root, nil, Limits{})
	te, ok := err.(*TreeError)
	if !ok {
		t.Fatalf("ValidateTree() = %T, want *TreeError", err)
	}
	if want := "app:\n- at '': missing property 'age'\n"; te.Details != want {
		t.Errorf("Details = %q, want %q", te.Details, want)
	}
}
