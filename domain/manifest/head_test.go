package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
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
	// Plain block YAML that scanHead takes, and near misses it must leave alone.
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: 'it''s'\n  annotations:\n    \"a\": \"b\"\n    c: |\n      d\nspec:\n  x: {}\n  y: []\n",
	"a:\n- b\n- c: d\n  e: f\n-\n  g: h\nkind: K # c\n", "a:\n  - 1\n  -\n  - [x, \"y\", 'z']\nb: c\n  d\n\n  e\n",
	"a: |2-\n    x\n  y\nb: >+\n\n  z\n\nc: |\n\n   \n  w\n", "a: 'x\n  y'\nb: \"x\\\n  y\\u00e9\\x\"\n", "a: \"x\n---\ny\"",
	"a: b: c", "a:\n  b\n c: d", "a: b\n  c: d", "a:\n  {}\nb:\n  x\n  y\n", "- a\n- b: c", "a: .nan", "1: a", "null: a", "~: a",
	"<<: {}", "a:\n  <<: b", "a: 1\n  # c\n  b", "a: b #c\n  d", "a:\tb", "a: b\n... \n", "kind: \"x\\ty\"", "name: yes\nkind: 1.5",
	"metadata:\n  annotations:\n    a: b\n    a: c", "metadata:\n  annotations:\n    a: ''\n    b:", "metadata: {}\nkind: \"\"",
	"a: [b, c: d]", "a: [b,]", "a: [-b]", "a: |0\n  x", "a: |1-\n  x", "a: >-2\n   x", "a: |x", "a: |#c\n b", "  a: b\nc: d",
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

// TestScanHeadOnCorpus holds the scanner to JSON decoding on every document of
// the conformance corpus's rendered goldens (prereq.Corpus).
func TestScanHeadOnCorpus(t *testing.T) {
	dir := prereq.Corpus(t)
	goldens, _ := filepath.Glob(filepath.Join(dir, "corpus*", "*", "golden", "*.yaml"))
	if len(goldens) == 0 {
		t.Fatalf("no conformance goldens under %s", dir)
	}
	var docs, scanned int
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range Split(string(data)) {
			docs++
			got, ok := scanHead(doc)
			if !ok {
				continue
			}
			scanned++
			want, err := headViaJSON(doc)
			if err != nil {
				t.Fatalf("%s: scanHead took a document JSON decoding refuses (%v):\n%s", g, err, doc)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: scanHead = %+v, JSON decoding %+v:\n%s", g, got, want, doc)
			}
		}
	}
	t.Logf("%d of %d documents scanned", scanned, docs)
}
