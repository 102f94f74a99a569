package porttest

import (
	"context"
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// testClusterUpgradeCRD: a CRD the cluster created is applied over (taking
// over the creator's fields, as an upgrade with --crds upgrade does); a new
// storage version joins status.storedVersions and is served; an update
// dropping a stored version is invalid.
func testClusterUpgradeCRD(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	group := f.Namespace + ".upgrade.porttest.kubectl-chart.dev"
	v1 := crd(t, group, "Widget", "Namespaced")
	deleteCRDs(t, c, v1)
	if err := c.InstallCRDs(ctx, []ports.Object{v1}, ""); err != nil {
		t.Fatal(err)
	}
	versions := func(vs ...string) ports.Object {
		o := crd(t, group, "Widget", "Namespaced")
		spec := o["spec"].(map[string]any)
		base := spec["versions"].([]any)[0].(map[string]any)
		var list []any
		for i, v := range vs {
			c := map[string]any{}
			for k, x := range base {
				c[k] = x
			}
			c["name"], c["storage"] = v, i == len(vs)-1
			list = append(list, c)
		}
		spec["versions"] = list
		return o
	}
	// The creator's name is the apply's: its update is taken over all the same.
	takeOver := ports.ApplyOptions{TakeOverFrom: []string{ports.DefaultFieldManager}}
	two := versions("v1", "v2")
	mustApply(t, ctx, c, two, takeOver)
	if err := c.InstallCRDs(ctx, []ports.Object{two}, ""); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, ctx, c, ports.RefOf(two))
	if s := field(got, "status", "storedVersions"); s != `["v1","v2"]` {
		t.Errorf("storedVersions = %s, want [v1 v2]", s)
	}
	if n := len(got["spec"].(map[string]any)["versions"].([]any)); n != 2 {
		t.Errorf("versions after the upgrade: %d", n)
	}
	w := clusterObject(t, `{"apiVersion":"%s/v2","kind":"Widget","metadata":{"name":"w","namespace":%q},"spec":{"size":3}}`, group, f.Namespace)
	mustApply(t, ctx, c, w, ports.ApplyOptions{})
	_, err := c.Apply(ctx, versions("v2"), takeOver)
	if !errors.Is(err, ports.ErrInvalid) {
		t.Errorf("dropping stored version v1: %v, want ErrInvalid", err)
	}
	if s := field(mustGet(t, ctx, c, ports.RefOf(two)), "status", "storedVersions"); s != `["v1","v2"]` {
		t.Errorf("storedVersions after the refusal = %s", s)
	}
}
