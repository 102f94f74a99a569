package stackrun

import (
	"context"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// appliedWide is a world where the stack of 20 releases of wide is applied.
func appliedWide(b *testing.B) (*world, stack.Stack) {
	b.Helper()
	w, s := newWorld(), wide(10)
	ctx := context.Background()
	p, err := w.planner().Plan(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.applier(0).Apply(ctx, p); err != nil {
		b.Fatal(err)
	}
	return w, s
}

// BenchmarkPlanUnchanged20 plans an unchanged stack of 20 releases in two
// namespaces (stack diff's work, on memclusters).
func BenchmarkPlanUnchanged20(b *testing.B) {
	w, s := appliedWide(b)
	for b.Loop() {
		p, err := w.planner().Plan(context.Background(), s)
		if err != nil || p.HasChanges() {
			b.Fatalf("plan: %v, changes: %v", err, p != nil && p.HasChanges())
		}
	}
}

// BenchmarkApplyUnchanged20 plans and applies an unchanged stack of 20
// releases (stack apply's work without a saved plan).
func BenchmarkApplyUnchanged20(b *testing.B) {
	w, s := appliedWide(b)
	ctx := context.Background()
	for b.Loop() {
		p, err := w.planner().Plan(ctx, s)
		if err != nil {
			b.Fatal(err)
		}
		a := w.applier(0)
		a.Replan = w.planner().Replanner(s, false)
		if _, err := a.Apply(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
