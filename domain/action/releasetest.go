package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// TestRequest runs a release's test hooks.
type TestRequest struct {
	ReleaseName string
	Namespace   string
	Timeout     time.Duration
	// Filter selects tests as Helm's --filter does: "name=NAME" runs only
	// those named, "!name=NAME" (or "! name=NAME") skips them; Helm ignores
	// anything else, and so do we.
	Filter []string
	// Dialect words a test that failed as that Helm does.
	Dialect dialect.Dialect
}

// Test runs the release's test hooks in weight order and records their runs.
// The revision it returns, and records, lists the hooks the filter skipped
// first, as Helm's does.
func (l *Lifecycle) Test(ctx context.Context, req TestRequest) (*release.Release, error) {
	if err := releasename.Check(req.ReleaseName, releasename.TestWords); err != nil {
		return nil, err
	}
	var rel *release.Release
	err := l.unitOfWork(ctx, req.Namespace, req.ReleaseName, func(ctx context.Context, h release.History) error {
		pl, err := l.Planner().PlanTest(ctx, req, h, PlanOptions{})
		if err != nil {
			return err
		}
		rel = pl.Record
		return l.executor().test(ctx, pl, req.Timeout, req.Dialect)
	})
	return rel, err
}

// PlanTest plans running the test hooks of the latest revision of history h.
func (p *Planner) PlanTest(_ context.Context, req TestRequest, h release.History, opts PlanOptions) (*plan.Plan, error) {
	rel := h.Latest()
	if rel == nil {
		return nil, ports.ErrReleaseNotFound
	}
	pl := p.newPlan(plan.OpTest, opts, req.ReleaseName, req.Namespace, h)
	pl.Record = rel
	pl.Settings.TestFilter = req.Filter
	_, run := parseTestFilter(req.Filter).split(rel.Hooks)
	for _, hk := range run {
		if hk.IsTest() {
			pl.Hooks = append(pl.Hooks, plan.HookRun{Event: release.HookTest, Kind: hk.Kind, Name: hk.Name, Weight: hk.Weight})
		}
	}
	return pl, nil
}

// testFilter is --filter: the hooks named to run, and those named to skip.
type testFilter struct{ include, exclude []string }

func parseTestFilter(filter []string) testFilter {
	var f testFilter
	for _, s := range filter {
		if name, ok := strings.CutPrefix(s, "name="); ok {
			f.include = append(f.include, name)
			continue
		}
		// Helm's "^!\s?name=": one optional blank after the "!".
		rest, ok := strings.CutPrefix(s, "!")
		if !ok {
			continue
		}
		if len(rest) > 0 && strings.ContainsRune(" \t\n\f\r", rune(rest[0])) {
			rest = rest[1:]
		}
		if name, ok := strings.CutPrefix(rest, "name="); ok {
			f.exclude = append(f.exclude, name)
		}
	}
	return f
}

// selects reports whether the filter lets a hook named name run.
func (f testFilter) selects(name string) bool {
	if contains(f.exclude, name) {
		return false
	}
	return len(f.include) == 0 || contains(f.include, name)
}

// split divides hooks into those the filter skips and those it runs, in
// Helm's order: skipped by exclusion, then by inclusion; the rest in order.
func (f testFilter) split(hooks []*release.Hook) (skipped, run []*release.Hook) {
	run = hooks
	if len(f.exclude) > 0 {
		skipped, run = partition(run, func(h *release.Hook) bool { return !contains(f.exclude, h.Name) })
	}
	if len(f.include) > 0 {
		var out []*release.Hook
		out, run = partition(run, func(h *release.Hook) bool { return contains(f.include, h.Name) })
		skipped = append(skipped, out...)
	}
	return skipped, run
}

// partition divides hooks into those keep refuses and those it keeps, in order.
func partition(hooks []*release.Hook, keep func(*release.Hook) bool) (out, in []*release.Hook) {
	for _, h := range hooks {
		if keep(h) {
			in = append(in, h)
		} else {
			out = append(out, h)
		}
	}
	return out, in
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// test runs a test plan's hooks and records their runs, the hooks the filter
// skipped listed first when there is a filter (Helm reorders them so). A test
// that failed says so in d's words.
func (e *executor) test(ctx context.Context, pl *plan.Plan, timeout time.Duration, d dialect.Dialect) error {
	rel := pl.Record
	f := parseTestFilter(pl.Settings.TestFilter)
	skipped, run := f.split(rel.Hooks)
	runErr := hookFailure(d, rel.ApplyMethod == release.ApplyServerSide, e.runHooks(ctx, &release.Release{Name: rel.Name, Namespace: rel.Namespace, Hooks: run, ApplyMethod: rel.ApplyMethod}, release.HookTest, timeoutOf(WaitSpec{Timeout: timeout}), false))
	if len(f.include)+len(f.exclude) > 0 {
		rel.Hooks = append(skipped, run...)
	}
	if err := e.Store.Update(context.WithoutCancel(ctx), rel); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("record test runs: %w", err))
	}
	return runErr
}
