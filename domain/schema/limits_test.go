package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// refChain is a schema whose root reaches its last definition through n $refs.
func refChain(n int) string {
	defs := make([]string, 0, n+1)
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"}`, i, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object"}`, n))
	return `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
}

// laughs is a schema applying its last definition's allOf of ten $refs to the
// one before, levels deep: 10^levels subschemas for any value.
func laughs(levels int) string {
	defs := []string{`"a0":{"type":"object"}`}
	for i := 1; i <= levels; i++ {
		defs = append(defs, fmt.Sprintf(`"a%d":{"allOf":[%s]}`, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf(`{"$ref":"#/$defs/a%d"},`, i-1), 10), ",")))
	}
	return fmt.Sprintf(`{"$ref":"#/$defs/a%d","$defs":{%s}}`, levels, strings.Join(defs, ","))
}

// nested is {"x":{"x":...}} depth levels deep.
func nested(depth int) map[string]any {
	v := map[string]any{}
	for range depth {
		v = map[string]any{"x": v}
	}
	return v
}

func TestLimits(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := map[string]struct {
		schema string
		values map[string]any
		loader Loader
		lim    Limits
		ctx    context.Context
		want   string
		limit  Limit
	}{
		"$ref chain within the nodes": {
			schema: refChain(99), lim: Limits{MaxNodes: 102},
		},
		"$ref chain past the nodes": {
			schema: refChain(100), lim: Limits{MaxNodes: 102},
			want: "the schema holds more than 102 objects and booleans", limit: LimitNodes,
		},
		"100,000-link $ref chain": {
			schema: refChain(100000),
			want:   "the schema holds more than 10000 objects and booleans", limit: LimitNodes,
		},
		"documents loaded count": {
			schema: `{"$ref":"other.json"}`, lim: Limits{MaxNodes: 102},
			loader: LoaderFunc(func(string) (any, error) { return []byte(refChain(100)), nil }),
			want:   "the schema holds more than 102 objects and booleans", limit: LimitNodes,
		},
		"allOf fan-out within the steps": {
			schema: laughs(3), values: map[string]any{}, lim: Limits{MaxSteps: 2500},
		},
		"allOf fan-out past the steps": {
			schema: laughs(3), values: map[string]any{}, lim: Limits{MaxSteps: 2200},
			want: "validating values against it takes more than 2200 steps", limit: LimitSteps,
		},
		"billion-laughs allOf": {
			schema: laughs(11),
			want:   "validating values against it takes more than 1000000 steps", limit: LimitSteps,
		},
		"members count": {
			schema: `{"additionalProperties":{"type":"string"}}`, values: map[string]any{"a": "", "b": "", "c": ""}, lim: Limits{MaxSteps: 6},
			want: "validating values against it takes more than 6 steps", limit: LimitSteps,
		},
		// The validator goes where the dynamic scope says: the static target
		// of each $dynamicRef (S) fans out nowhere, its dynamic one (the root)
		// ten ways at each level of the value.
		"$dynamicRef fan-out": {
			schema: `{"$dynamicAnchor":"n","allOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"s"},`, 10), ",") + `],` +
				`"$defs":{"S":{"$id":"s","$dynamicAnchor":"n","properties":{"x":{"$dynamicRef":"#n"}}}}}`,
			values: nested(8),
			want:   "validating values against it takes more than 1000000 steps", limit: LimitSteps,
		},
		"$recursiveRef fan-out": {
			schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"allOf":[` +
				strings.TrimSuffix(strings.Repeat(`{"$ref":"s"},`, 10), ",") + `],` +
				`"$defs":{"S":{"$id":"s","$recursiveAnchor":true,"properties":{"x":{"$recursiveRef":"#"}}}}}`,
			values: nested(8),
			want:   "validating values against it takes more than 1000000 steps", limit: LimitSteps,
		},
		"recursive schema on a deep value": {
			schema: `{"$dynamicAnchor":"n","properties":{"x":{"$dynamicRef":"#n"}}}`, values: nested(1000),
		},
		"deadline passed": {
			schema: `{"type":"object"}`, lim: Limits{Deadline: time.Now().Add(-time.Second)},
			want: "validating values took too long", limit: LimitTime,
		},
		"context ended": {
			schema: `{"type":"object"}`, ctx: canceled, want: "context canceled",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			err := Validate(ctx, []byte(tc.schema), tc.values, tc.loader, tc.lim)
			if got := errText(err); got != tc.want {
				t.Fatalf("Validate() error %q, want %q", got, tc.want)
			}
			if le, ok := errors.AsType[*LimitError](err); ok != (tc.limit != 0) || ok && le.Limit != tc.limit {
				t.Errorf("Validate() = %#v, want a LimitError at limit %d", err, tc.limit)
			}
		})
	}
}

func TestValidateTreeNamesTheFileAtALimit(t *testing.T) {
	root := ChartSchema{ChartName: "app", Schema: []byte(`{"type":"object"}`), Values: map[string]any{"sub": map[string]any{}},
		Subcharts: []ChartSchema{{ChartName: "sub", Schema: []byte(laughs(11))}}}
	const want = "app/charts/sub/values.schema.json: validating values against it takes more than 1000000 steps"
	if got := errText(ValidateTree(t.Context(), root, nil, Limits{})); got != want {
		t.Errorf("ValidateTree() error %q, want %q", got, want)
	}
}

// FuzzLoadSchema compiles any document as a values schema and validates values
// against it under small limits: it may be refused, never panic or run on.
func FuzzLoadSchema(f *testing.F) {
	for _, s := range []string{`{}`, `true`, refChain(20), laughs(4), ageSchema,
		`{"$dynamicAnchor":"n","properties":{"x":{"$dynamicRef":"#n"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"$ref":"#"}],"additionalItems":{"$ref":"#/items/0"}}`} {
		f.Add([]byte(s))
	}
	values := map[string]any{}
	if err := json.Unmarshal([]byte(`{"a":1,"b":[1,"x",{"c":true,"x":{"x":{}}}],"x":{"x":{"x":null}},"age":3}`), &values); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		lim := Limits{MaxNodes: 500, MaxSteps: 20000}
		s, err := Compile(doc, nil, lim)
		if err != nil {
			return
		}
		err = s.Validate(t.Context(), values)
		if strings.HasPrefix(errText(err), "unable to validate schema:") {
			t.Fatalf("Validate() panicked: %v", err)
		}
	})
}
