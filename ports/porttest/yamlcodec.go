package porttest

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// YAMLCodec checks a ports.YAMLCodec: documents of a stream come back one a
// mapping, in order, each written again as it was read; annotations are read,
// set (metadata created when missing) and cleared (what setting created
// removed again); malformed YAML and a document that is not a mapping are refused.
func YAMLCodec(t *testing.T, c ports.YAMLCodec) {
	t.Helper()
	const stream = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    keep: \"yes\"\n---\nkind: Secret\n"
	docs, err := c.Parse(stream)
	if err != nil || len(docs) != 2 {
		t.Fatalf("Parse = %d documents, %v; want 2", len(docs), err)
	}
	if out, err := c.Format(docs); err != nil || out != stream {
		t.Errorf("Format(Parse(s)) = %q, %v; want s", out, err)
	}
	if ann, err := docs[0].Annotations(); err != nil || ann["keep"] != "yes" {
		t.Errorf("Annotations = %v, %v", ann, err)
	}
	for _, d := range docs {
		if err := d.SetAnnotation("k", "v"); err != nil {
			t.Fatalf("SetAnnotation: %v", err)
		}
		if ann, err := d.Annotations(); err != nil || ann["k"] != "v" {
			t.Errorf("after SetAnnotation: %v, %v", ann, err)
		}
		if err := d.ClearAnnotation("k"); err != nil {
			t.Fatalf("ClearAnnotation: %v", err)
		}
	}
	out, err := c.Format(docs)
	if err != nil || out != stream {
		t.Errorf("set then cleared: %q, %v; want the stream as it was", out, err)
	}
	for name, bad := range map[string]string{"malformed": "a: [\n", "sequence": "- a\n", "scalar": "text\n"} {
		if _, err := c.Parse(bad); err == nil {
			t.Errorf("Parse of %s YAML succeeded", name)
		}
	}
	if docs, err := c.Parse("# only a comment\n"); err != nil || len(docs) != 0 {
		t.Errorf("Parse of a comment = %d documents, %v; want none", len(docs), err)
	}
}
