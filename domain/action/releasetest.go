package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// TestRequest runs a release's test hooks.
type TestRequest struct {
	ReleaseName string
	Namespace   string
	Timeout     time.Duration
	// Filter selects tests: "name=NAME" runs only those named, "!name=NAME" skips them.
	Filter []string
	// Logs writes the logs of the test pods to LogOutput.
	Logs      bool
	LogOutput io.Writer
}

// Test runs the release's test hooks in weight order and records their runs.
func (l *Lifecycle) Test(ctx context.Context, req TestRequest) (*release.Release, error) {
	var rel *release.Release
	var selected *release.Release
	err := l.unitOfWork(ctx, req.Namespace, req.ReleaseName, func(ctx context.Context, h release.History) error {
		pl, err := l.Planner().PlanTest(ctx, req, h, PlanOptions{})
		if err != nil {
			return err
		}
		rel = pl.Record
		selected, err = l.executor().test(ctx, pl, req.Timeout)
		return err
	})
	if rel == nil || selected == nil {
		return rel, err
	}
	runErr := err
	if req.Logs && req.LogOutput != nil {
		for _, hk := range selected.Hooks {
			if hk.LastRun.Phase == release.HookPhaseUnknown || hk.LastRun.Phase == "" {
				continue
			}
			var pods []string
			switch hk.Kind {
			case "Pod":
				pods = []string{hk.Name}
			case "Job":
				// A test Job's logs are its pods'.
				items, err := l.Cluster.List(ctx, "v1", "Pod", rel.Namespace, "job-name="+hk.Name)
				if err == nil {
					for _, p := range items {
						pods = append(pods, p.GetName())
					}
				}
			}
			for _, pod := range pods {
				fmt.Fprintf(req.LogOutput, "POD LOGS: %s\n", pod)
				if err := l.Cluster.PodLogs(ctx, rel.Namespace, pod, req.LogOutput); err != nil && !errors.Is(err, ports.ErrObjectNotFound) {
					fmt.Fprintf(req.LogOutput, "(logs unavailable: %v)\n", err)
				}
				// Helm ends each pod's logs with an empty line.
				fmt.Fprintln(req.LogOutput)
			}
		}
	}
	return rel, runErr
}

// PlanTest plans running the test hooks of the latest revision of history h.
func (p *Planner) PlanTest(_ context.Context, req TestRequest, h release.History, opts PlanOptions) (*plan.Plan, error) {
	rel := h.Latest()
	if rel == nil {
		return nil, fmt.Errorf("release: not found")
	}
	for _, f := range req.Filter {
		if !strings.HasPrefix(f, "!name=") && !strings.HasPrefix(f, "name=") {
			return nil, fmt.Errorf("invalid --filter %q: want name=NAME or !name=NAME", f)
		}
	}
	pl := p.newPlan(plan.OpTest, opts, req.ReleaseName, req.Namespace, h)
	pl.Record = rel
	pl.Settings.TestFilter = req.Filter
	for _, hk := range selectTests(rel, req.Filter).Hooks {
		pl.Hooks = append(pl.Hooks, plan.HookRun{Event: release.HookTest, Kind: hk.Kind, Name: hk.Name, Weight: hk.Weight})
	}
	return pl, nil
}

// selectTests is the release's test hooks that a filter selects: "name=NAME"
// runs only those named, "!name=NAME" skips them.
func selectTests(rel *release.Release, filter []string) *release.Release {
	include, exclude := map[string]bool{}, map[string]bool{}
	for _, f := range filter {
		switch {
		case strings.HasPrefix(f, "!name="):
			exclude[strings.TrimPrefix(f, "!name=")] = true
		case strings.HasPrefix(f, "name="):
			include[strings.TrimPrefix(f, "name=")] = true
		}
	}
	selected := &release.Release{Name: rel.Name, Namespace: rel.Namespace}
	for _, hk := range rel.Hooks {
		if !hk.IsTest() || exclude[hk.Name] || (len(include) > 0 && !include[hk.Name]) {
			continue
		}
		selected.Hooks = append(selected.Hooks, hk)
	}
	return selected
}

// test runs a test plan's hooks and records their runs on the revision.
func (e *Executor) test(ctx context.Context, pl *plan.Plan, timeout time.Duration) (*release.Release, error) {
	rel := pl.Record
	selected := selectTests(rel, pl.Settings.TestFilter)
	runErr := e.runHooks(ctx, selected, release.HookTest, WaitSpec{Timeout: timeout}.timeout())
	if err := e.Store.Update(context.WithoutCancel(ctx), rel); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("record test runs: %w", err))
	}
	return selected, runErr
}
