package stack

import (
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// Set entries hold helmfile's escaping already: merged once, a comma or a
// brace in a value stays in it (escaped twice it would keep the backslash).
func TestMergeValues(t *testing.T) {
	r := Release{ID: ID{Namespace: "ns", Name: "r"}, Values: [][]byte{[]byte("a: 1\nb: {c: 2}\n"), []byte("a: 3\n")},
		Set: []SetValue{{Name: "b.c", Value: `x\,y`}}, SetString: []SetValue{{Name: "d", Value: `\{1\}`}}}
	got, err := r.MergeValues(dialect.Helm4)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": float64(3), "b": map[string]any{"c": "x,y"}, "d": "{1}"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}
