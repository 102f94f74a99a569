package jsonschema_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	upstream "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/jsonschema"
)

// The copy differs from upstream only in when the drafts' meta-schemas are
// compiled (on first use instead of at package initialisation): these tests
// compile and validate through both and want the same outcome, byte for byte.

const schemaURL = "http://example.com/schema.json"

var drafts = map[string]string{
	"draft-04":  "http://json-schema.org/draft-04/schema#",
	"draft-06":  "http://json-schema.org/draft-06/schema#",
	"draft-07":  "http://json-schema.org/draft-07/schema#",
	"2019-09":   "https://json-schema.org/draft/2019-09/schema",
	"2020-12":   "https://json-schema.org/draft/2020-12/schema",
	"latest":    "https://json-schema.org/schema",
	"no schema": "",
}

// schemas are schemas in every draft: valid ones with instances to validate,
// and invalid ones, which only the meta-schema of their draft rejects.
var schemas = map[string]struct {
	schema    string
	instances []string
}{
	"types and bounds": {
		schema:    `{"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 1}, "name": {"type": "string", "maxLength": 5}}, "required": ["name"]}`,
		instances: []string{`{"name": "web", "replicas": 2}`, `{"replicas": 0}`, `{"name": "toolong", "replicas": "2"}`, `[]`, `null`},
	},
	"composition": {
		schema:    `{"anyOf": [{"type": "string"}, {"type": "number", "multipleOf": 2}], "not": {"enum": ["x", 4]}}`,
		instances: []string{`"a"`, `"x"`, `4`, `3`, `6`, `true`},
	},
	"refs and definitions": {
		schema:    `{"definitions": {"port": {"type": "integer", "maximum": 65535}}, "properties": {"ports": {"type": "array", "items": {"$ref": "#/definitions/port"}}}}`,
		instances: []string{`{"ports": [80, 443]}`, `{"ports": [80, 70000, "x"]}`},
	},
	"patterns and formats": {
		schema:    `{"properties": {"host": {"format": "hostname"}, "mail": {"format": "email"}}, "patternProperties": {"^x-": {"type": "boolean"}}, "additionalProperties": false}`,
		instances: []string{`{"host": "a.b", "x-on": true}`, `{"host": "-bad-", "mail": "nope", "x-on": 1, "other": 1}`},
	},
	"schema as instance": {
		schema:    `{"properties": {"nested": {"$ref": "http://json-schema.org/draft-07/schema#"}}}`,
		instances: []string{`{"nested": {"type": "string"}}`, `{"nested": {"type": 12, "minimum": "x"}}`},
	},
	"invalid type keyword": {schema: `{"type": 1}`},
	"invalid minimum":      {schema: `{"properties": {"a": {"minimum": "1"}}}`},
	"invalid required":     {schema: `{"required": "name"}`},
	// Not an invalid pattern of patternProperties: upstream reports it at the
	// instance location of whichever property it visited last (map order).
	"invalid pattern":    {schema: `{"properties": {"a": {"pattern": "^(abc]"}}}`},
	"invalid items":      {schema: `{"items": 3}`},
	"invalid nested ref": {schema: `{"dummy": {"type": 1}, "$ref": "#/dummy"}`},
	"invalid vocabulary": {schema: `{"$vocabulary": {"https://example.com/vocab": true}}`},
}

// outcome compiles schema and validates instances with one library's
// functions, and tells what came out.
func outcome(compile func(doc any) (validate func(any) error, err error), schema string, instances []string) (string, error) {
	doc, err := unmarshal(schema)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	validate, err := compile(doc)
	if err != nil {
		fmt.Fprintf(&b, "compile: %v\n", err)
		return b.String(), nil
	}
	for _, in := range instances {
		v, err := unmarshal(in)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s: %s\n", in, describe(validate(v)))
	}
	return b.String(), nil
}

func unmarshal(s string) (any, error) {
	return upstream.UnmarshalJSON(strings.NewReader(s))
}

// describe prints a validation error in every form the library has: its
// message, its tree and its basic and detailed outputs. The library lists
// the errors of an object's properties in map order, which changes from run
// to run: lines and lists are sorted.
func describe(err error) string {
	if err == nil {
		return "valid"
	}
	var basic, detailed any
	switch e := err.(type) {
	case *upstream.ValidationError:
		basic, detailed = e.BasicOutput(), e.DetailedOutput()
	case *jsonschema.ValidationError:
		basic, detailed = e.BasicOutput(), e.DetailedOutput()
	}
	return strings.Join([]string{sortedLines(fmt.Sprintf("%v", err)), sortedLines(fmt.Sprintf("%#v", err)), canonical(basic), canonical(detailed)}, "\n")
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// canonical is v's JSON with every list sorted.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return err.Error()
	}
	var sortLists func(v any) any
	sortLists = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				v[k] = sortLists(e)
			}
		case []any:
			keys := make([]string, len(v))
			for i, e := range v {
				b, _ := json.Marshal(sortLists(e))
				keys[i] = string(b)
			}
			slices.Sort(keys)
			return keys
		}
		return v
	}
	b, _ = json.Marshal(sortLists(doc))
	return string(b)
}

func upstreamCompile() func(doc any) (func(any) error, error) {
	return func(doc any) (func(any) error, error) {
		c := upstream.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(schemaURL, doc); err != nil {
			return nil, err
		}
		s, err := c.Compile(schemaURL)
		if err != nil {
			return nil, err
		}
		return s.Validate, nil
	}
}

func copyCompile() func(doc any) (func(any) error, error) {
	return func(doc any) (func(any) error, error) {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(schemaURL, doc); err != nil {
			return nil, err
		}
		s, err := c.Compile(schemaURL)
		if err != nil {
			return nil, err
		}
		return s.Validate, nil
	}
}

// withDraft adds "$schema": url to the schema's object.
func withDraft(schema, url string) string {
	if url == "" {
		return schema
	}
	return fmt.Sprintf(`{"$schema": %q, %s`, url, strings.TrimPrefix(schema, "{"))
}

func TestSameAsUpstream(t *testing.T) {
	for draft, url := range drafts {
		for name, tc := range schemas {
			t.Run(draft+"/"+name, func(t *testing.T) {
				t.Parallel()
				schema := withDraft(tc.schema, url)
				want, err := outcome(upstreamCompile(), schema, tc.instances)
				if err != nil {
					t.Fatal(err)
				}
				got, err := outcome(copyCompile(), schema, tc.instances)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("schema %s\ngot:\n%s\nupstream:\n%s", schema, got, want)
				}
			})
		}
	}
}

// TestMetaSchemasConcurrently compiles schemas of every draft at once: the
// first use of a draft's meta-schemas compiles them, once, under the race
// detector.
func TestMetaSchemasConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for draft, url := range drafts {
		for range 4 {
			wg.Go(func() {
				schema := withDraft(schemas["invalid minimum"].schema, url)
				got, err := outcome(copyCompile(), schema, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if !strings.Contains(got, "compile: ") {
					t.Errorf("%s: %s compiled; want its meta-schema to reject it", draft, schema)
				}
			})
		}
	}
	wg.Wait()
}
