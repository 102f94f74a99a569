package porttest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// testClusterReads: the reads status --show-resources makes, the server's
// tables and whole lists of live objects, and the reachability check.
func testClusterReads(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	if err := c.Reachable(ctx); err != nil {
		t.Fatalf("Reachable: %v", err)
	}
	for _, name := range []string{"a", "b", "c"} {
		o := configMap(t, f.Namespace, name, `{"k":"v"}`)
		if name != "c" {
			o.SetLabels(map[string]string{"app": "web"})
		}
		mustApply(t, ctx, c, o, ports.ApplyOptions{})
	}
	t.Run("table of one object", func(t *testing.T) {
		tab, err := c.GetTable(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: f.Namespace, Name: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(tableNames(t, tab)); got != "[b]" {
			t.Errorf("rows name %s, want [b]", got)
		}
	})
	t.Run("table of a missing object", func(t *testing.T) {
		_, err := c.GetTable(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: f.Namespace, Name: "none"})
		if !errors.Is(err, ports.ErrObjectNotFound) {
			t.Errorf("err = %v, want ErrObjectNotFound", err)
		}
	})
	t.Run("table of a list", func(t *testing.T) {
		tab, err := c.ListAs(ctx, "v1", "ConfigMap", f.Namespace, "app=web", ports.AsTable)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(tableNames(t, tab)); got != "[a b]" {
			t.Errorf("rows name %s, want [a b]", got)
		}
	})
	t.Run("list", func(t *testing.T) {
		l, err := c.ListAs(ctx, "v1", "ConfigMap", f.Namespace, "app=web", ports.AsList)
		if err != nil {
			t.Fatal(err)
		}
		if l.GetAPIVersion() != "v1" || l.GetKind() != "ConfigMapList" || !l.IsList() {
			t.Errorf("list is %s %s", l.GetAPIVersion(), l.GetKind())
		}
		if got := fmt.Sprint(names(l.Items())); got != "[a b]" {
			t.Errorf("items %s, want [a b]", got)
		}
		for _, it := range l.Items() {
			if it.GetKind() != "ConfigMap" || it.GetAPIVersion() != "v1" {
				t.Errorf("item %s is a %s %s", it.GetName(), it.GetAPIVersion(), it.GetKind())
			}
		}
	})
	t.Run("unknown kind", func(t *testing.T) {
		if _, err := c.ListAs(ctx, "example.com/v1", "Nothing", f.Namespace, "", ports.AsTable); !errors.Is(err, ports.ErrUnknownKind) {
			t.Errorf("err = %v, want ErrUnknownKind", err)
		}
	})
}

// tableNames are the first cells (the names) of a Table's rows, after
// checking that it is one whose first column is the name.
func tableNames(t *testing.T, tab ports.Object) []string {
	t.Helper()
	if tab.GetKind() != "Table" {
		t.Fatalf("kind %q, want Table", tab.GetKind())
	}
	cols, _ := tab["columnDefinitions"].([]any)
	if len(cols) == 0 {
		t.Fatal("table without columns")
	}
	if first, _ := cols[0].(map[string]any); first["name"] != "Name" {
		t.Errorf("first column %v, want Name", first["name"])
	}
	rows, _ := tab["rows"].([]any)
	var out []string
	for _, r := range rows {
		cells, _ := r.(map[string]any)["cells"].([]any)
		if len(cells) == 0 {
			t.Fatalf("row without cells: %v", r)
		}
		s, _ := cells[0].(string)
		out = append(out, s)
	}
	return out
}
