package stackrun

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// wide is n releases in each of apps and infra of the default context, each
// needing the one before it in its namespace.
func wide(n int) stack.Stack {
	var s stack.Stack
	for _, ns := range []string{"apps", "infra"} {
		for i := range n {
			r := rel("", ns, fmt.Sprintf("r%d", i))
			if i > 0 {
				r.Needs = []stack.ID{id("", ns, fmt.Sprintf("r%d", i-1))}
			}
			s.Releases = append(s.Releases, r)
		}
	}
	return s
}

// lists counts the whole-namespace LISTs of each kind and namespace.
func lists(c *memcluster.Cluster) map[string]int {
	out := map[string]int{}
	for _, call := range c.Calls(memcluster.VerbList) {
		if call.Selector == "" {
			out[call.Ref.Kind+" "+call.Ref.Namespace]++
		}
	}
	return out
}

func TestPlanListsEachKindOncePerNamespace(t *testing.T) {
	tests := map[string]struct {
		// before readies the world (nothing, or the stack applied).
		before func(*testing.T, *world, stack.Stack)
	}{
		"new stack":       {before: func(*testing.T, *world, stack.Stack) {}},
		"unchanged stack": {before: func(t *testing.T, w *world, s stack.Stack) { mustApply(t, w, mustPlan(t, w, s), 0) }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := newWorld()
			s := wide(10)
			tc.before(t, w, s)
			w.clusters[""].ResetCalls()
			mustPlan(t, w, s)
			got := lists(w.clusters[""])
			for _, k := range []string{"ConfigMap apps", "ConfigMap infra"} {
				if got[k] != 1 {
					t.Errorf("%s listed %d times by the plan of 20 releases, want once: %v", k, got[k], got)
				}
			}
		})
	}
}

func TestApplyChecks(t *testing.T) {
	tests := map[string]struct {
		saved bool
		// want is how many times each kind and namespace is listed before
		// the releases are applied: once for a saved plan, which is verified
		// whole; never for a plan just made, whose releases are verified
		// under their locks when they change.
		want int
	}{
		"saved plan":     {saved: true, want: 1},
		"plan just made": {saved: false, want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := newWorld()
			s := wide(10)
			mustApply(t, w, mustPlan(t, w, s), 0)
			p := mustPlan(t, w, s)
			a := w.applier(0)
			if !tc.saved {
				a.Replan = w.planner().Replanner(s, false)
			}
			w.clusters[""].ResetCalls()
			allIn(t, mustDo(t, a, p), StateUnchanged)
			for _, k := range []string{"ConfigMap apps", "ConfigMap infra"} {
				if got := lists(w.clusters[""])[k]; got != tc.want {
					t.Errorf("%s listed %d times by the apply of an unchanged stack, want %d", k, got, tc.want)
				}
			}
			if applied := w.clusters[""].Calls(memcluster.VerbApply); len(applied) > 0 {
				t.Errorf("an unchanged stack applied %v", applied)
			}
		})
	}
}

func TestSharedReadsHandCopies(t *testing.T) {
	c := memcluster.New(memcluster.WithNamespaces("apps"))
	ctx := context.Background()
	cm := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "apps"}, "data": map[string]any{"k": "v"}}
	if _, err := c.Apply(ctx, cm, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	s := shareReads(c)
	first, err := s.List(ctx, "v1", "ConfigMap", "apps", "")
	if err != nil || len(first) != 1 {
		t.Fatalf("list: %v %v", first, err)
	}
	first[0]["data"].(map[string]any)["k"] = "changed by a planner"
	second, err := s.List(ctx, "v1", "ConfigMap", "apps", "")
	if err != nil || second[0]["data"].(map[string]any)["k"] != "v" {
		t.Errorf("the second caller got %v (%v), want the object as listed", second, err)
	}
	if got := lists(c)["ConfigMap apps"]; got != 1 {
		t.Errorf("listed %d times, want once", got)
	}
	if _, err := s.List(ctx, "v1", "ConfigMap", "apps", "app=x"); err != nil || len(c.Calls(memcluster.VerbList)) != 2 {
		t.Errorf("a LIST with a selector is not the cluster's: %v, %v", err, c.Calls(memcluster.VerbList))
	}
}
