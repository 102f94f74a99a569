package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template"
)

func execFuncs(t *testing.T, tpl string, data any) (string, error) {
	t.Helper()
	var b strings.Builder
	tt, err := template.New("test").Funcs(baseFuncs()).Parse(tpl)
	if err != nil {
		return "", err
	}
	err = tt.Execute(&b, data)
	return b.String(), err
}

func TestFuncs(t *testing.T) {
	tests := map[string]struct {
		tpl, want string
		data      any
		wantErr   string
	}{
		"toYaml": {
			tpl: `{{ toYaml . }}`, want: "foo: bar", data: map[string]any{"foo": "bar"},
		},
		"toYaml of nested values, no trailing newline": {
			tpl: `{{ toYaml . }}`, want: "a:\n  b:\n  - 1\n  - two\nz: null", data: map[string]any{"z": nil, "a": map[string]any{"b": []any{1, "two"}}},
		},
		"toYaml of a string": {
			tpl: `{{ toYaml . }}`, want: `"on"`, data: "on",
		},
		"toYamlPretty indents lists": {
			tpl: `{{ toYamlPretty . }}`, want: "baz:\n  - 1\n  - 2\n  - 3", data: map[string]any{"baz": []int{1, 2, 3}},
		},
		"toToml": {
			tpl: `{{ toToml . }}`, want: "foo = \"bar\"\n", data: map[string]any{"foo": "bar"},
		},
		"toToml of a nested table (helm#2271)": {
			tpl: `{{ toToml . }}`, want: "[mast]\n  sail = \"white\"\n", data: map[string]map[string]string{"mast": {"sail": "white"}},
		},
		"toToml of a list": {
			tpl: `{{ toToml . }}`, want: "[1, 2]", data: []int{1, 2},
		},
		"fromToml": {
			tpl: `{{ fromToml . }}`, want: "map[hello:world]", data: `hello = "world"`,
		},
		"fromToml with tables": {
			tpl:  `{{ fromToml . }}`,
			want: "map[table:map[keyInTable:valueInTable subtable:map[keyInSubtable:valueInSubTable]]]",
			data: "\n[table]\nkeyInTable = \"valueInTable\"\n[table.subtable]\nkeyInSubtable = \"valueInSubTable\"",
		},
		"fromToml with an array of tables": {
			tpl:  `{{ fromToml . }}`,
			want: "map[tableArray:[map[keyInElement0:valueInElement0] map[keyInElement1:valueInElement1]]]",
			data: "\n[[tableArray]]\nkeyInElement0 = \"valueInElement0\"\n[[tableArray]]\nkeyInElement1 = \"valueInElement1\"",
		},
		"fromToml error goes under Error": {
			tpl: `{{ fromToml . }}`, want: "map[Error:toml: line 1: unexpected EOF; expected key separator '=']", data: "one",
		},
		"toJson": {
			tpl: `{{ toJson . }}`, want: `{"foo":"bar"}`, data: map[string]any{"foo": "bar"},
		},
		"toJson of something that cannot be encoded": {
			tpl: `{{ toJson . }}`, want: "", data: map[string]any{"f": func() {}},
		},
		"fromYaml": {
			tpl: `{{ fromYaml . }}`, want: "map[hello:world]", data: `hello: world`,
		},
		"fromYaml numbers are float64": {
			tpl: `{{ (fromYaml .).num | kindOf }}`, want: "float64", data: `num: 1`,
		},
		"fromYaml of a list puts the error under Error": {
			tpl:  `{{ fromYaml . }}`,
			want: "map[Error:error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}]",
			data: "- one\n- two\n",
		},
		"fromYaml of a flow list": {
			tpl:  `{{ fromYaml . }}`,
			want: "map[Error:error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}]",
			data: `["one", "two"]`,
		},
		"fromYaml of malformed YAML": {
			tpl:  `{{ (fromYaml .).Error }}`,
			want: "error converting YAML to JSON: yaml: line 1: did not find expected node content",
			data: "a: [",
		},
		"fromYamlArray": {
			tpl: `{{ fromYamlArray . }}`, want: "[one 2 map[name:helm]]", data: "- one\n- 2\n- name: helm\n",
		},
		"fromYamlArray of a flow list": {
			tpl: `{{ fromYamlArray . }}`, want: "[one 2 map[name:helm]]", data: `["one", 2, { "name": "helm" }]`,
		},
		"fromYamlArray of a map gives the error as the only element": {
			tpl:  `{{ fromYamlArray . }}`,
			want: "[error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []interface {}]",
			data: `hello: world`,
		},
		"fromJson": {
			tpl: `{{ fromJson . }}`, want: `map[hello:world]`, data: `{"hello":"world"}`,
		},
		"fromJson of a list puts the error under Error": {
			tpl: `{{ fromJson . }}`, want: `map[Error:json: cannot unmarshal array into Go value of type map[string]interface {}]`, data: `["one", "two"]`,
		},
		"fromJsonArray": {
			tpl: `{{ fromJsonArray . }}`, want: `[one 2 map[name:helm]]`, data: `["one", 2, { "name": "helm" }]`,
		},
		"fromJsonArray of a map gives the error as the only element": {
			tpl: `{{ fromJsonArray . }}`, want: `[json: cannot unmarshal object into Go value of type []interface {}]`, data: `{"hello": "world"}`,
		},
		"merge keeps the destination's values": {
			tpl:  `{{ merge .dict (fromYaml .yaml) }}`,
			want: `map[a:map[b:c]]`,
			data: map[string]any{"dict": map[string]any{"a": map[string]any{"b": "c"}}, "yaml": `{"a":{"b":"d"}}`},
		},
		"merge into parsed YAML": {
			tpl:  `{{ merge (fromYaml .yaml) .dict }}`,
			want: `map[a:map[b:d]]`,
			data: map[string]any{"dict": map[string]any{"a": map[string]any{"b": "c"}}, "yaml": `{"a":{"b":"d"}}`},
		},
		"mustToJson is sprig's": {
			tpl: `{{ mustToJson . }}`, want: `{"a":1}`, data: map[string]any{"a": 1},
		},
		"mustToJson fails on what it cannot encode": {
			tpl: `{{ mustToJson . }}`, data: map[string]any{"f": func() {}},
			wantErr: `template: test:1:3: executing "test" at <mustToJson .>: error calling mustToJson: json: unsupported type: func()`,
		},
		"mustFromJson takes any JSON value": {
			tpl: `{{ mustFromJson "[1,2]" }} {{ mustFromJson "\"s\"" }} {{ mustFromJson "{\"k\":1}" }}`, want: `[1 2] s map[k:1]`,
		},
		"mustFromJson fails on bad JSON": {
			tpl:     `{{ mustFromJson "a" }}`,
			wantErr: `template: test:1:3: executing "test" at <mustFromJson "a">: error calling mustFromJson: invalid character 'a' looking for beginning of value`,
		},
		"env is not available": {
			tpl: `{{ env "HOME" }}`, wantErr: `template: test:1: function "env" not defined`,
		},
		"expandenv is not available": {
			tpl: `{{ expandenv "$HOME" }}`, wantErr: `template: test:1: function "expandenv" not defined`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := execFuncs(t, tc.tpl, tc.data)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v\nwant    %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("%s = %q\nwant %q", tc.tpl, got, tc.want)
			}
		})
	}
}

func TestFuncMapMatchesHelm(t *testing.T) {
	fns := baseFuncs()
	tests := map[string]struct {
		names   []string
		present bool
	}{
		"Helm's additions": {
			names:   []string{"toYaml", "toYamlPretty", "fromYaml", "fromYamlArray", "toToml", "fromToml", "toJson", "fromJson", "fromJsonArray", "mustToJson", "mustFromJson"},
			present: true,
		},
		"environment access and functions Helm v3.22 does not have": {
			names: []string{"env", "expandenv", "mustToYaml", "mustFromYaml", "mustFromYamlArray", "mustToToml", "mustFromToml", "mustFromJsonArray"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, fn := range tc.names {
				if _, ok := fns[fn]; ok != tc.present {
					t.Errorf("function %q present = %v, want %v", fn, ok, tc.present)
				}
			}
		})
	}
}

func TestSprigMergeSemantics(t *testing.T) {
	// mergo changed its merging in v0.3.9; Helm pins the older behaviour through
	// sprig, and so must we.
	dict := map[string]any{
		"src2": map[string]any{"h": 10, "i": "i", "j": "j"},
		"src1": map[string]any{
			"a": 1, "b": 2, "d": map[string]any{"e": "four"}, "g": []int{6, 7}, "i": "aye", "j": "jay",
			"k": map[string]any{"l": false},
		},
		"dst": map[string]any{
			"a": "one", "c": 3, "d": map[string]any{"f": 5}, "g": []int{8, 9}, "i": "eye",
			"k": map[string]any{"l": true},
		},
	}
	if _, err := execFuncs(t, `{{merge .dst .src1 .src2}}`, dict); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": "one", "b": 2, "c": 3, "d": map[string]any{"e": "four", "f": 5},
		"g": []int{8, 9}, "h": 10, "i": "eye", "j": "jay", "k": map[string]any{"l": true},
	}
	if !reflect.DeepEqual(dict["dst"], want) {
		t.Errorf("merged = %v, want %v", dict["dst"], want)
	}
}

func TestYAMLMemoKeepsTheLatestTexts(t *testing.T) {
	memo := newYAMLMemo()
	doc := func(i int) string {
		return fmt.Sprintf("name: doc%d\npad: %q\n", i, strings.Repeat("x", 64<<10))
	}
	for i := range 10 {
		got := memo.fromYAML(doc(i))
		if got["name"] != fmt.Sprintf("doc%d", i) {
			t.Fatalf("fromYAML(doc %d) = %v", i, got["name"])
		}
		// Callers own what they get: changing it leaves the memo's copy alone.
		got["name"] = "changed"
		if again := memo.fromYAML(doc(i)); again["name"] != fmt.Sprintf("doc%d", i) {
			t.Fatalf("memo gave back a changed result: %v", again["name"])
		}
	}
	if memo.size > memoMaxBytes || len(memo.docs) != len(memo.order) {
		t.Fatalf("memo holds %d bytes in %d results (%d in order), bound %d", memo.size, len(memo.docs), len(memo.order), memoMaxBytes)
	}
	if _, ok := memo.docs[doc(9)]; !ok {
		t.Fatal("memo forgot the latest text")
	}
	if _, ok := memo.docs[doc(0)]; ok {
		t.Fatal("memo kept the oldest text beyond its bound")
	}
}
