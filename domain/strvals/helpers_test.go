package strvals

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// Short spellings for expected values; the parser only ever builds these types.
type (
	obj = map[string]any
	arr = []any
)

// parseCase is one line parsed into a fresh map. wantErr, when set, is the
// exact error text.
type parseCase struct {
	in      string
	want    obj
	wantErr string
}

// intoCase parses several lines in turn into an existing map.
type intoCase struct {
	dest    obj
	in      []string
	want    obj
	wantErr string
}

func checkResult(t *testing.T, in string, got obj, err error, want obj, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil {
			t.Fatalf("%q: want error %q, got none (result %#v)", in, wantErr, got)
		}
		if err.Error() != wantErr {
			t.Fatalf("%q: error\n got: %s\nwant: %s", in, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: unexpected error: %v", in, err)
	}
	// DeepEqual, unlike Helm's YAML comparison, also pins Go types (int64 vs
	// float64, []any vs nil).
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got: %s (%#v)\nwant: %s (%#v)", in, toYAML(t, got), got, toYAML(t, want), want)
	}
}

func toYAML(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

func runParseCases(t *testing.T, cases map[string]parseCase, parse func(string, map[string]any, ...Option) error) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := obj{}
			err := parse(tc.in, got)
			checkResult(t, tc.in, got, err, tc.want, tc.wantErr)
		})
	}
}

func runIntoCases(t *testing.T, cases map[string]intoCase, parse func(string, map[string]any, ...Option) error) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			for _, in := range tc.in {
				if err = parse(in, tc.dest); err != nil {
					break
				}
			}
			checkResult(t, name, tc.dest, err, tc.want, tc.wantErr)
		})
	}
}

// nestedKey builds "name1.name2....nameN" followed by "=value".
func nestedKey(segments int) string {
	s := ""
	for i := 1; i <= segments; i++ {
		if i > 1 {
			s += "."
		}
		s += "name" + itoa(i)
	}
	return s + "=value"
}

// nestedWant is what nestedKey(segments) parses to.
func nestedWant(segments int) obj {
	var v any = "value"
	for i := segments; i >= 1; i-- {
		v = obj{"name" + itoa(i): v}
	}
	return v.(obj)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
