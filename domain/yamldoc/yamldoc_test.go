package yamldoc

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

func viaSigs(data []byte) (map[string]any, error) {
	m := map[string]any{}
	err := yaml.Unmarshal(data, &m)
	return m, err
}

func compare(t *testing.T, doc string) {
	t.Helper()
	want, wantErr := viaSigs([]byte(doc))
	// Keys that collide once stringified make sigs.k8s.io/yaml depend on map order.
	if again, _ := viaSigs([]byte(doc)); !reflect.DeepEqual(want, again) {
		return
	}
	got, gotErr := UnmarshalMap([]byte(doc))
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("UnmarshalMap(%q) error %v, sigs.k8s.io/yaml %v", doc, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("UnmarshalMap(%q) = %#v, sigs.k8s.io/yaml %#v", doc, got, want)
	}
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
