package porttest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ManagersOf lists an object's managedFields entries as manager/operation,
// sorted.
func ManagersOf(o ports.Object) []string {
	md, _ := o["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	var out []string
	for _, e := range entries {
		m, _ := e.(map[string]any)
		out = append(out, fmt.Sprintf("%v/%v", m["manager"], m["operation"]))
	}
	slices.Sort(out)
	return out
}

// testClusterApplyManager: an apply is Helm's manager's unless it names
// another (kubectl's --field-manager), dry runs included.
func testClusterApplyManager(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	live := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"size":"1"}`), ports.ApplyOptions{})
	if got := ManagersOf(live); !slices.Equal(got, []string{ports.DefaultFieldManager + "/Apply"}) {
		t.Errorf("managers = %v, want an apply by %s", got, ports.DefaultFieldManager)
	}
	mine := ports.ApplyOptions{FieldManager: "porttest-mine"}
	dry := mine
	dry.DryRun = true
	if got := ManagersOf(mustApply(t, ctx, c, configMap(t, f.Namespace, "other", `{"size":"1"}`), dry)); !slices.Equal(got, []string{"porttest-mine/Apply"}) {
		t.Errorf("managers of a dry run = %v, want an apply by porttest-mine", got)
	}
	live = mustApply(t, ctx, c, configMap(t, f.Namespace, "other", `{"size":"1"}`), mine)
	if got := ManagersOf(live); !slices.Equal(got, []string{"porttest-mine/Apply"}) {
		t.Errorf("managers = %v, want an apply by porttest-mine", got)
	}
}

// testClusterTakeOverApplied: what a manager of another name applied (an
// earlier field manager of ours, Helm 4's server-side apply) is taken over
// whole: no conflict, the fields the applied object drops are removed, the
// old manager keeps nothing, and the apply's manager changes the fields again
// without a conflict (Helm 4's next upgrade, when that manager is Helm's).
func testClusterTakeOverApplied(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	if _, err := others.ApplyAs(ctx, "porttest-old", configMap(t, f.Namespace, "web", `{"kept":"a","dropped":"b","same":"s"}`), ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	ours := configMap(t, f.Namespace, "web", `{"kept":"c","same":"s"}`)
	takeOver := ports.ApplyOptions{TakeOverFrom: []string{"porttest-old"}}
	live := mustApply(t, ctx, c, ours, takeOver)
	assertData(t, live, map[string]string{"kept": "c", "same": "s"})
	if got := ManagersOf(live); !slices.Equal(got, []string{ports.DefaultFieldManager + "/Apply"}) {
		t.Errorf("managers after the take-over = %v, want only %s's apply", got, ports.DefaultFieldManager)
	}
	// A field the old manager shared with us (same value) is ours alone:
	// changing it as the apply's manager meets no conflict with the old name.
	if _, err := others.ApplyAs(ctx, ports.DefaultFieldManager, configMap(t, f.Namespace, "web", `{"kept":"d","same":"t"}`), ports.ApplyOptions{}); err != nil {
		t.Errorf("the apply's manager changing the fields again: %v", err)
	}
	assertData(t, mustGet(t, ctx, c, ports.RefOf(ours)), map[string]string{"kept": "d", "same": "t"})
}

// testClusterTakeOverChosen: applying as a manager of one's choosing takes
// over Helm's apply and update and the chosen manager's own update (a
// create), and leaves other managers' fields alone.
func testClusterTakeOverChosen(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	if _, err := others.UpdateAs(ctx, "porttest-mine", configMap(t, f.Namespace, "web", `{"created":"1"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := others.ApplyAs(ctx, "porttest-helm", configMap(t, f.Namespace, "web", `{"applied":"1","helm":"1"}`), ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := others.ApplyAs(ctx, "porttest-edit", configMap(t, f.Namespace, "web", `{"edited":"1"}`), ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	ours := configMap(t, f.Namespace, "web", `{"applied":"2"}`)
	opts := ports.ApplyOptions{FieldManager: "porttest-mine", TakeOverFrom: []string{"porttest-mine", "porttest-helm"}}
	live := mustApply(t, ctx, c, ours, opts)
	assertData(t, live, map[string]string{"applied": "2", "edited": "1"})
	if got := ManagersOf(live); !slices.Equal(got, []string{"porttest-edit/Apply", "porttest-mine/Apply"}) {
		t.Errorf("managers = %v, want porttest-mine's apply and porttest-edit's", got)
	}
}
