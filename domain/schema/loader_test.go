package schema

import (
	"context"
	"errors"
	"testing"
)

const imageRefSchema = `{"properties":{"image":{"$ref":"https://example.com/schemas/image.json"}}}`

const imageDoc = `{"type":"object","properties":{"tag":{"type":"string"}},"required":["tag"]}`

func TestValidateReferences(t *testing.T) {
	serve := func(docs map[string]any) Loader {
		return LoaderFunc(func(url string) (any, error) {
			if doc, ok := docs[url]; ok {
				return doc, nil
			}
			return nil, errors.New("not found")
		})
	}
	tests := map[string]struct {
		schema string
		values map[string]any
		loader Loader
		want   string
	}{
		"remote $ref refused without a loader": {
			schema: imageRefSchema,
			want:   `failing loading "https://example.com/schemas/image.json": no schema loader configured to resolve references to other documents`,
		},
		"relative $ref resolves to file:// and is refused without a loader": {
			schema: `{"$ref":"defs/other.json"}`,
			want:   `failing loading "file:///defs/other.json": no schema loader configured to resolve references to other documents`,
		},
		"custom metaschema refused without a loader": {
			schema: `{"$schema":"https://example.com/meta.json"}`,
			want:   `failing loading "https://example.com/meta.json": no schema loader configured to resolve references to other documents`,
		},
		"loader serves raw JSON": {
			schema: imageRefSchema,
			values: map[string]any{"image": map[string]any{"tag": int64(1)}},
			loader: serve(map[string]any{"https://example.com/schemas/image.json": []byte(imageDoc)}),
			want:   "- at '/image/tag': got number, want string\n",
		},
		"loader serves a decoded document": {
			schema: imageRefSchema,
			values: map[string]any{"image": map[string]any{}},
			loader: serve(map[string]any{"https://example.com/schemas/image.json": map[string]any{"required": []any{"tag"}}}),
			want:   "- at '/image': missing property 'tag'\n",
		},
		"loader serves a valid match": {
			schema: imageRefSchema,
			values: map[string]any{"image": map[string]any{"tag": "1.0"}},
			loader: serve(map[string]any{"https://example.com/schemas/image.json": []byte(imageDoc)}),
		},
		"loader serves file:// refs too": {
			schema: `{"properties":{"a":{"$ref":"defs.json#/$defs/s"}}}`,
			values: map[string]any{"a": true},
			loader: serve(map[string]any{"file:///defs.json": []byte(`{"$defs":{"s":{"type":"string"}}}`)}),
			want:   "- at '/a': got boolean, want string\n",
		},
		"loader failure names the URL": {
			schema: imageRefSchema,
			loader: serve(nil),
			want:   `failing loading "https://example.com/schemas/image.json": not found`,
		},
		"loader serving invalid JSON": {
			schema: imageRefSchema,
			loader: serve(map[string]any{"https://example.com/schemas/image.json": []byte(`{`)}),
			want:   `failing loading "https://example.com/schemas/image.json": unexpected EOF`,
		},
		"unresolved urn is permissive without a loader": {
			schema: `{"$schema":"https://json-schema.org/draft-07/schema#","$ref":"urn:example:helm:schemas:v1"}`,
			values: map[string]any{"any": "value"},
		},
		"unresolved urn is permissive when the loader fails": {
			schema: `{"$ref":"urn:example:x"}`,
			values: map[string]any{"any": "value"},
			loader: serve(nil),
		},
		"urn served by the loader": {
			schema: `{"$ref":"urn:example:x"}`,
			values: map[string]any{"any": "value"},
			loader: serve(map[string]any{"urn:example:x": []byte(`{"additionalProperties":false}`)}),
			want:   "- at '': additional properties 'any' not allowed\n",
		},
		"unsupported scheme": {
			schema: `{"$ref":"ftp://example.com/x.json"}`,
			loader: serve(nil),
			want:   `failing loading "ftp://example.com/x.json": no URLLoader registered for "ftp://example.com/x.json"`,
		},
		"metaschemas never reach the loader": {
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
			loader: LoaderFunc(func(url string) (any, error) { panic("loader called for " + url) }),
		},
		"panicking loader": {
			schema: imageRefSchema,
			loader: LoaderFunc(func(string) (any, error) { panic("boom") }),
			want:   "unable to validate schema: boom",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := Validate(context.Background(), []byte(tc.schema), tc.values, tc.loader, Limits{})
			if got := errText(err); got != tc.want {
				t.Errorf("Validate() error:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestLoaderCalledOncePerCompile(t *testing.T) {
	calls := 0
	loader := LoaderFunc(func(string) (any, error) {
		calls++
		return []byte(imageDoc), nil
	})
	s, err := Compile([]byte(imageRefSchema), loader, Limits{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	for range 3 {
		_ = s.Validate(context.Background(), map[string]any{"image": map[string]any{"tag": "x"}})
	}
	if calls != 1 {
		t.Errorf("loader called %d times, want 1", calls)
	}
}
