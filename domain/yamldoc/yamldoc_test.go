package yamldoc

import (
	"fmt"
	"reflect"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

func viaSigs(data []byte) (map[string]any, error) {
	m := map[string]any{}
	err := yaml.Unmarshal(data, &m)
	return m, err
}

func compare(t *testing.T, doc string) {
	t.Helper()
	// Keys that collide once stringified ("1" and 1) make sigs.k8s.io/yaml's result
	// depend on map order; there is nothing to compare.
	if hasCollidingKeys([]byte(doc)) {
		return
	}
	want, wantErr := viaSigs([]byte(doc))
	got, gotErr := UnmarshalMap([]byte(doc))
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("UnmarshalMap(%q) error %v, sigs.k8s.io/yaml %v", doc, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("UnmarshalMap(%q) = %#v, sigs.k8s.io/yaml %#v", doc, got, want)
	}
}

func hasCollidingKeys(doc []byte) bool {
	var raw any
	if yamlv2.Unmarshal(doc, &raw) != nil {
		return false
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case map[any]any:
			seen := map[string]bool{}
			for k, x := range t {
				key := fmt.Sprint(k)
				if seen[key] || walk(x) {
					return true
				}
				seen[key] = true
			}
		case []any:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		}
		return false
	}
	return walk(raw)
}

var seeds = []string{
	"", "# comment", "a: 1", "a: 1.5\nb: 1e3\nc: 0x1F\nd: 0o17\ne: 1_000", "a: [1, two, null, true, {b: c}]",
	"404: not found\ntrue: yes\n1.5: x", "a: .inf", "a: .nan", "- a\n- b", "just a string", "a: !!binary aGk=",
	"a: 2001-12-14t21:59:43.10-05:00", "a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n  e: 2", "a: 9223372036854775807\nb: 18446744073709551615\nc: 99999999999999999999",
	"1: a\n\"1\": b", "? [a]\n: b", "a: \"\\xff\"", "a: ~\nb: Null\nc: NULL", "a: b: c", "a:\n  - b\n - c", "{a: 1, a: 2}",
}

func TestUnmarshalMapMatchesSigs(t *testing.T) {
	for _, s := range seeds {
		t.Run(s, func(t *testing.T) { compare(t, s) })
	}
}

func FuzzUnmarshalMap(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(compare)
}
