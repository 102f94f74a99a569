package values_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/domain/yamldoc"
)

const mobyDick = `
title: "Moby Dick"
chapter:
  one:
    title: "Loomings"
  two:
    title: "The Carpet-Bag"
  three:
    title: "The Spouter Inn"
  nothing: null
  list: [a, b]
`

func TestTable(t *testing.T) {
	doc, err := yamldoc.UnmarshalMap([]byte(mobyDick))
	if err != nil {
		t.Fatal(err)
	}
	d := values.Values(doc)
	d["typed"] = values.Values{"inner": values.Values{"k": "v"}}

	tests := map[string]struct {
		path    string
		want    values.Values
		wantErr error
	}{
		"top-level table":       {path: "chapter", want: values.Values(d["chapter"].(map[string]any))},
		"nested table":          {path: "chapter.one", want: values.Values{"title": "Loomings"}},
		"another nested table":  {path: "chapter.three", want: values.Values{"title": "The Spouter Inn"}},
		"table of type Values":  {path: "typed.inner", want: values.Values{"k": "v"}},
		"scalar is not a table": {path: "title", wantErr: values.ErrNoTable{Key: "title"}},
		"missing nested table":  {path: "chapter.OneHundredThirtySix", wantErr: values.ErrNoTable{Key: "OneHundredThirtySix"}},
		"missing first element": {path: "epilogue.one", wantErr: values.ErrNoTable{Key: "epilogue"}},
		"null is not a table":   {path: "chapter.nothing", wantErr: values.ErrNoTable{Key: "nothing"}},
		"list is not a table":   {path: "chapter.list", wantErr: values.ErrNoTable{Key: "list"}},
		"through a scalar":      {path: "title.x", wantErr: values.ErrNoTable{Key: "title"}},
		"empty path":            {path: "", wantErr: values.ErrNoTable{Key: ""}},
		"trailing dot":          {path: "chapter.", wantErr: values.ErrNoTable{Key: ""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := d.Table(tc.path)
			if tc.wantErr != nil {
				if !reflect.DeepEqual(err, tc.wantErr) {
					t.Fatalf("Table(%q) error = %#v, want %#v", tc.path, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Table(%q): %v", tc.path, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Table(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

func TestPathValue(t *testing.T) {
	doc, err := yamldoc.UnmarshalMap([]byte(mobyDick))
	if err != nil {
		t.Fatal(err)
	}
	d := values.Values(doc)
	tests := map[string]struct {
		path    string
		want    any
		wantErr string
	}{
		"nested value":              {path: "chapter.one.title", want: "Loomings"},
		"root value":                {path: "title", want: "Moby Dick"},
		"null value":                {path: "chapter.nothing", want: nil},
		"list value":                {path: "chapter.list", want: []any{"a", "b"}},
		"missing key":               {path: "chapter.one.doesnotexist", wantErr: `"doesnotexist" is not a value`},
		"missing table in the path": {path: "chapter.doesnotexist.one", wantErr: `"one" is not a value`},
		"a table is not a value":    {path: "chapter.one", wantErr: `"one" is not a value`},
		"root table is not a value": {path: "chapter", wantErr: `"chapter" is not a value`},
		"empty path":                {path: "", wantErr: "YAML path cannot be empty"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := d.PathValue(tc.path)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("PathValue(%q) error = %v, want %q", tc.path, err, tc.wantErr)
				}
				if tc.path != "" {
					var nv values.ErrNoValue
					if !errors.As(err, &nv) {
						t.Errorf("PathValue(%q) error is %T, want ErrNoValue", tc.path, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("PathValue(%q): %v", tc.path, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("PathValue(%q) = %#v, want %#v", tc.path, got, tc.want)
			}
		})
	}
}

func TestAsMap(t *testing.T) {
	v := values.Values{"b": []any{1, "two"}, "a": map[string]any{"c": nil}}
	if m := values.Values(nil).AsMap(); m == nil || len(m) != 0 {
		t.Errorf("nil AsMap() = %#v, want an empty map", m)
	}
	if m := v.AsMap(); !reflect.DeepEqual(m, map[string]any(v)) {
		t.Errorf("AsMap() = %#v", m)
	}
}

func TestDeepCopy(t *testing.T) {
	orig := map[string]any{
		"table":  map[string]any{"list": []any{map[string]any{"x": 1}}, "s": "v"},
		"values": values.Values{"k": []any{"a"}},
		"nil":    nil,
	}
	cp := values.DeepCopy(orig).(map[string]any)
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("copy differs: %#v", cp)
	}
	cp["table"].(map[string]any)["list"].([]any)[0].(map[string]any)["x"] = 2
	cp["values"].(values.Values)["k"].([]any)[0] = "b"
	cp["table"].(map[string]any)["s"] = "changed"
	if got := orig["table"].(map[string]any)["list"].([]any)[0].(map[string]any)["x"]; got != 1 {
		t.Errorf("copy shares a nested map: original x = %v", got)
	}
	if got := orig["values"].(values.Values)["k"].([]any)[0]; got != "a" {
		t.Errorf("copy shares a list: original = %v", got)
	}
	if got := orig["table"].(map[string]any)["s"]; got != "v" {
		t.Errorf("copy shares a table: original s = %v", got)
	}
	if values.DeepCopy(map[string]any(nil)).(map[string]any) != nil {
		t.Error("DeepCopy(nil map) is not nil")
	}
}

func TestMergeMaps(t *testing.T) {
	tests := map[string]struct {
		a, b, want map[string]any
	}{
		"b wins on scalars": {
			a:    map[string]any{"x": 1, "y": 2},
			b:    map[string]any{"y": 3},
			want: map[string]any{"x": 1, "y": 3},
		},
		"tables merge recursively": {
			a:    map[string]any{"t": map[string]any{"a": 1, "n": map[string]any{"deep": 1}}},
			b:    map[string]any{"t": map[string]any{"b": 2, "n": map[string]any{"deeper": 2}}},
			want: map[string]any{"t": map[string]any{"a": 1, "b": 2, "n": map[string]any{"deep": 1, "deeper": 2}}},
		},
		"lists are replaced, not merged": {
			a:    map[string]any{"l": []any{1, 2, 3}},
			b:    map[string]any{"l": []any{4}},
			want: map[string]any{"l": []any{4}},
		},
		"a scalar replaces a table": {
			a:    map[string]any{"t": map[string]any{"a": 1}},
			b:    map[string]any{"t": "flat"},
			want: map[string]any{"t": "flat"},
		},
		"a table replaces a scalar": {
			a:    map[string]any{"t": "flat"},
			b:    map[string]any{"t": map[string]any{"a": 1}},
			want: map[string]any{"t": map[string]any{"a": 1}},
		},
		"null is kept": {
			a:    map[string]any{"t": 1},
			b:    map[string]any{"t": nil},
			want: map[string]any{"t": nil},
		},
		"nil inputs": {
			want: map[string]any{},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			aBefore := values.DeepCopy(tc.a)
			got := values.MergeMaps(tc.a, tc.b)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MergeMaps = %#v, want %#v", got, tc.want)
			}
			if tc.a != nil && !reflect.DeepEqual(tc.a, aBefore) {
				t.Errorf("MergeMaps changed its first argument: %#v", tc.a)
			}
		})
	}
}
