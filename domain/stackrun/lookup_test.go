package stackrun

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// TestLookupSeesWhatItsNeedsApplied checks that a release whose templates
// look up an object another release it needs creates renders with it, as
// helmfile renders each release after its needs are deployed: without a
// saved plan it is planned again at its turn; with one (no Replan) it is
// applied exactly as planned.
func TestLookupSeesWhatItsNeedsApplied(t *testing.T) {
	stackOf := func(size int) stack.Stack {
		db := rel("", "apps", "db")
		db.Values = [][]byte{fmt.Appendf(nil, "size: %d\n", size)}
		app := rel("", "apps", "app", id("", "apps", "db"))
		app.Chart = "lookup"
		return stack.Stack{Environment: "default", Releases: []stack.Release{app, db}}
	}
	tests := map[string]struct {
		replan bool
		want   []string // app's data.db after each of two applies (size 1, then 2)
		states []string // app's state after each apply
	}{
		"planned again at its turn": {replan: true, want: []string{"1", "2"}, states: []string{"applied", "applied"}},
		"exactly as saved":          {replan: false, want: []string{"none", "1"}, states: []string{"applied", "applied"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := newWorld()
			for i, size := range []int{1, 2} {
				s := stackOf(size)
				p := mustPlan(t, w, s)
				if !p.Release(id("", "apps", "app")).Plan.LookedUp {
					t.Fatalf("apply %d: app's plan does not say it looked objects up", i+1)
				}
				a := w.applier(0)
				if tc.replan {
					a.Replan = w.planner().Replanner(s, false)
				}
				sum := mustDo(t, a, p)
				if got := states(sum)["apps/app"]; got != tc.states[i] {
					t.Errorf("apply %d: app %s, want %s", i+1, got, tc.states[i])
				}
				cm, err := w.clusters[""].Get(context.Background(), ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "apps", Name: "app"})
				if err != nil {
					t.Fatal(err)
				}
				if got := cm["data"].(map[string]any)["db"]; got != tc.want[i] {
					t.Errorf("apply %d: app's data.db = %v, want %s", i+1, got, tc.want[i])
				}
			}
		})
	}
}
