package values_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/values"
)

// fakeReader serves files from memory and records what was asked for.
type fakeReader struct {
	files map[string]string
	asked []string
}

func (f *fakeReader) read(name string) ([]byte, error) {
	f.asked = append(f.asked, name)
	data, ok := f.files[name]
	if !ok {
		return nil, fmt.Errorf("open %s: no such file", name)
	}
	return []byte(data), nil
}

func TestOptionsMerge(t *testing.T) {
	files := map[string]string{
		"a.yaml":    "a: 1\nt:\n  x: 1\n  w: 1\nl: [1, 2]\nreplaced: {deep: true}\n",
		"b.yaml":    "t:\n  w: 2\nl: [3]\nreplaced: flat\n",
		"null.yaml": "# nothing\n",
		"-":         "stdin: true\n",
		"cert.pem":  "-----BEGIN-----\nabc\n",
		"other":     "other file",
	}
	tests := map[string]struct {
		opts      values.Options
		want      map[string]any
		wantAsked []string
	}{
		"nothing": {
			want: map[string]any{},
		},
		"files merge in order, later wins, lists replaced": {
			opts:      values.Options{ValueFiles: []string{"a.yaml", "b.yaml"}},
			want:      map[string]any{"a": float64(1), "t": map[string]any{"x": float64(1), "w": float64(2)}, "l": []any{float64(3)}, "replaced": "flat"},
			wantAsked: []string{"a.yaml", "b.yaml"},
		},
		"empty file and standard input": {
			opts:      values.Options{ValueFiles: []string{"null.yaml", "-"}},
			want:      map[string]any{"stdin": true},
			wantAsked: []string{"null.yaml", "-"},
		},
		"--set over -f": {
			opts:      values.Options{ValueFiles: []string{"a.yaml"}, Values: []string{"a=2,t.z=3"}},
			want:      map[string]any{"a": int64(2), "t": map[string]any{"x": float64(1), "w": float64(1), "z": int64(3)}, "l": []any{float64(1), float64(2)}, "replaced": map[string]any{"deep": true}},
			wantAsked: []string{"a.yaml"},
		},
		"--set-json before --set": {
			opts: values.Options{JSONValues: []string{`k={"a":1,"b":[1,2]}`, `x=1`}, Values: []string{"k.c=3", "x=2"}},
			want: map[string]any{"k": map[string]any{"a": float64(1), "b": []any{float64(1), float64(2)}, "c": int64(3)}, "x": int64(2)},
		},
		"--set-string after --set": {
			opts: values.Options{Values: []string{"x=1,y=true"}, StringValues: []string{"x=1"}},
			want: map[string]any{"x": "1", "y": true},
		},
		"--set-file after --set-string": {
			opts:      values.Options{StringValues: []string{"f=s"}, FileValues: []string{"f=cert.pem,g=other"}},
			want:      map[string]any{"f": "-----BEGIN-----\nabc\n", "g": "other file"},
			wantAsked: []string{"cert.pem", "other"},
		},
		"--set-literal last": {
			opts:      values.Options{Values: []string{"l=1"}, StringValues: []string{"l=2"}, FileValues: []string{"l=other"}, LiteralValues: []string{"l=a,b=c"}},
			want:      map[string]any{"l": "a,b=c"},
			wantAsked: []string{"other"},
		},
		"every source, each overriding the one before": {
			opts: values.Options{
				ValueFiles:    []string{"a.yaml"},
				JSONValues:    []string{`a="json"`, `j=1`},
				Values:        []string{"j=set", "s=1"},
				StringValues:  []string{"s=string", "f=1"},
				FileValues:    []string{"f=other", "lit=other"},
				LiteralValues: []string{"lit={not,a,list}"},
			},
			want: map[string]any{
				"a": "json", "t": map[string]any{"x": float64(1), "w": float64(1)}, "l": []any{float64(1), float64(2)},
				"replaced": map[string]any{"deep": true},
				"j":        "set", "s": "string", "f": "other file", "lit": "{not,a,list}",
			},
			wantAsked: []string{"a.yaml", "other", "other"},
		},
		"--set null": {
			opts:      values.Options{ValueFiles: []string{"a.yaml"}, Values: []string{"a=null"}},
			want:      map[string]any{"a": nil, "t": map[string]any{"x": float64(1), "w": float64(1)}, "l": []any{float64(1), float64(2)}, "replaced": map[string]any{"deep": true}},
			wantAsked: []string{"a.yaml"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := &fakeReader{files: files}
			got, err := tc.opts.Merge(r.read)
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge =\n%#v\nwant\n%#v", got, tc.want)
			}
			if !sameList(r.asked, tc.wantAsked) {
				t.Errorf("read %v, want %v", r.asked, tc.wantAsked)
			}
		})
	}
}

func TestOptionsMergeErrors(t *testing.T) {
	files := map[string]string{"bad.yaml": "a: [", "list.yaml": "- a\n", "ok.yaml": "a: 1\n"}
	tests := map[string]struct {
		opts       values.Options
		wantErr    string
		wantPrefix bool
		wantIs     error
	}{
		"missing values file": {
			opts:    values.Options{ValueFiles: []string{"ok.yaml", "missing.yaml"}},
			wantErr: "open missing.yaml: no such file",
		},
		"malformed values file": {
			opts:    values.Options{ValueFiles: []string{"bad.yaml"}},
			wantErr: "failed to parse bad.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content",
		},
		"values file that is a list": {
			opts:    values.Options{ValueFiles: []string{"list.yaml"}},
			wantErr: "failed to parse list.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
		},
		"bad --set-json": {
			opts:    values.Options{JSONValues: []string{`k={"a":`}},
			wantErr: `failed parsing --set-json data k={"a":`,
		},
		"bad --set": {
			opts:       values.Options{Values: []string{"a.=b"}},
			wantErr:    "failed parsing --set data: ",
			wantPrefix: true,
		},
		"bad --set-string": {
			opts:       values.Options{StringValues: []string{"a[x]=b"}},
			wantErr:    "failed parsing --set-string data: ",
			wantPrefix: true,
		},
		"missing --set-file": {
			opts:    values.Options{FileValues: []string{"cert=missing.pem"}},
			wantErr: "failed parsing --set-file data: open missing.pem: no such file",
		},
		"bad --set-literal": {
			opts:       values.Options{LiteralValues: []string{"novalue"}},
			wantErr:    "failed parsing --set-literal data: ",
			wantPrefix: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := &fakeReader{files: files}
			got, err := tc.opts.Merge(r.read)
			if err == nil {
				t.Fatalf("Merge = %v, want an error", got)
			}
			if got != nil {
				t.Errorf("Merge returned values with its error: %v", got)
			}
			if tc.wantPrefix {
				if !strings.HasPrefix(err.Error(), tc.wantErr) || len(err.Error()) == len(tc.wantErr) {
					t.Errorf("error = %q, want %q followed by the parser's reason", err, tc.wantErr)
				}
				return
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
			}
		})
	}
}

func TestOptionsMergeKeepsReadErrors(t *testing.T) {
	sentinel := errors.New("permission denied")
	_, err := values.Options{FileValues: []string{"k=secret"}}.Merge(func(string) ([]byte, error) { return nil, sentinel })
	if !errors.Is(err, sentinel) {
		t.Errorf("error = %v, want it to wrap the reader's error", err)
	}
	_, err = values.Options{ValueFiles: []string{"x"}}.Merge(func(string) ([]byte, error) { return nil, sentinel })
	if !errors.Is(err, sentinel) {
		t.Errorf("error = %v, want the reader's error", err)
	}
}
