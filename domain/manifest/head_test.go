package manifest

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// headViaJSON is how Helm reads a head; parseHead must agree with it.
func headViaJSON(doc string) (*Head, error) {
	var h Head
	if err := yaml.Unmarshal([]byte(doc), &h); err != nil {
		return nil, err
	}
	return &h, nil
}

var headSeeds = []string{
	"", "# only a comment", "plain string", "- a\n- b",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    helm.sh/hook: pre-install\n",
	"kind: 1", "Kind: Pod", "apiVersion: v1\nKIND: Pod\nkind: Job", "metadata: null", "metadata: []",
	"metadata:\n  annotations:\n    a: 1", "metadata:\n  annotations:\n    1: a", "metadata:\n  Name: x",
	"metadata:\n  annotations: null\n  name: null", "kind: [", "kind: Pod\nkind: Job", "a: &x 1\nkind: *x",
}

func TestParseHeadMatchesJSONDecoding(t *testing.T) {
	for _, doc := range headSeeds {
		t.Run(doc, func(t *testing.T) { compareHead(t, doc) })
	}
}

func FuzzParseHead(f *testing.F) {
	for _, s := range headSeeds {
		f.Add(s)
	}
	f.Fuzz(compareHead)
}

func compareHead(t *testing.T, doc string) {
	got, gotErr := parseHead(doc)
	want, wantErr := headViaJSON(doc)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("parseHead(%q) error %v, JSON decoding %v", doc, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseHead(%q) = %+v, JSON decoding %+v", doc, got, want)
	}
}
