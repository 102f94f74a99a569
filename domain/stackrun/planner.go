package stackrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Planner makes one plan for a stack. It only reads: each release is
// planned by the release Planner as a preview (with the server's dry run of
// every change and each context's permissions as problems), so that the
// plan can be shown, saved and applied exactly.
type Planner struct {
	Targets Targets
	Charts  Charts
	// Dialect renders the charts (--compat); "" renders each release as
	// the Helm that wrote its latest revision did, a new one as Helm 4, as
	// upgrade does.
	Dialect dialect.Dialect
	// Concurrency bounds the releases planned at once; 0 is unlimited.
	Concurrency int
}

// Plan plans every release of s: install or upgrade (a no-op when nothing
// would change), uninstall for `installed: false`. Any release that cannot
// be planned (a context that does not exist or cannot be reached, a chart
// that does not load) fails the whole plan, naming each.
func (p *Planner) Plan(ctx context.Context, s stack.Stack) (*stack.Plan, error) {
	return p.plan(ctx, s, false)
}

// PlanDestroy plans the uninstall of every release of s, in the reverse
// order of their needs.
func (p *Planner) PlanDestroy(ctx context.Context, s stack.Stack) (*stack.Plan, error) {
	return p.plan(ctx, s, true)
}

func (p *Planner) plan(ctx context.Context, s stack.Stack, destroy bool) (*stack.Plan, error) {
	after := afterOf(s.Releases, destroy)
	order := make([]stack.Release, len(s.Releases))
	for i, r := range s.Releases {
		order[i] = stack.Release{ID: r.ID, Needs: after[r.ID]}
	}
	waves, err := stack.Waves(order)
	if err != nil {
		return nil, err
	}
	out := &stack.Plan{APIVersion: stack.PlanAPIVersion, Kind: stack.PlanKind, Environment: s.Environment,
		Releases: make([]stack.ReleasePlan, len(s.Releases)), Waves: waves}
	errs := make([]error, len(s.Releases))
	targets := &sharedTargets{Targets: p.Targets, lifecycles: map[string]*action.Lifecycle{}}
	forEach(ctx, len(s.Releases), p.Concurrency, func(ctx context.Context, i int) {
		r := s.Releases[i]
		rp := stack.ReleasePlan{ID: r.ID, Needs: r.Needs, After: after[r.ID], Wait: r.Wait, WaitForJobs: r.WaitForJobs, Timeout: r.Timeout}
		if destroy {
			r.Installed = false
		}
		rp.Action, rp.Plan, errs[i] = p.planRelease(ctx, targets, r)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("release %s: %w", r.ID, errs[i])
		}
		out.Releases[i] = rp
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Replanner plans the releases of s again one by one, for Applier.Replan;
// destroy plans their uninstall. Each is planned from fresh reads: it is
// planned again because what it was planned from changed.
func (p *Planner) Replanner(s stack.Stack, destroy bool) func(context.Context, stack.ID) (stack.Action, *plan.Plan, error) {
	return func(ctx context.Context, id stack.ID) (stack.Action, *plan.Plan, error) {
		for _, r := range s.Releases {
			if r.ID != id {
				continue
			}
			if destroy {
				r.Installed = false
			}
			return p.planRelease(ctx, p.Targets, r)
		}
		return "", nil, fmt.Errorf("release %s is not in the stack", id)
	}
}

// afterOf is, per release, the releases that must be done before it starts:
// its needs, or for a destroy the releases that need it.
func afterOf(releases []stack.Release, destroy bool) map[stack.ID][]stack.ID {
	in := make(map[stack.ID]bool, len(releases))
	for _, r := range releases {
		in[r.ID] = true
	}
	after := make(map[stack.ID][]stack.ID, len(releases))
	for _, r := range releases {
		for _, n := range r.Needs {
			if !in[n] {
				// Left out by a selector: helmfile orders nothing by it.
				continue
			}
			if destroy {
				after[n] = append(after[n], r.ID)
			} else {
				after[r.ID] = append(after[r.ID], n)
			}
		}
	}
	return after
}

// planRelease plans one release with the lifecycle targets hand for its
// context, from one read of its history.
func (p *Planner) planRelease(ctx context.Context, targets Targets, r stack.Release) (stack.Action, *plan.Plan, error) {
	lc, err := targets.Lifecycle(ctx, r.ID.KubeContext)
	if err != nil {
		return "", nil, err
	}
	h, err := lc.Store.History(ctx, r.ID.Namespace, r.ID.Name)
	if err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
		return "", nil, fmt.Errorf("read history: %w", err)
	}
	latest := release.History(h).Latest()
	if !r.Installed {
		if latest == nil || latest.Info == nil || latest.Info.Status == release.StatusUninstalled {
			return stack.ActionAbsent, nil, nil
		}
		pl, err := lc.PreviewUninstallFrom(ctx, action.UninstallRequest{ReleaseName: r.ID.Name, Namespace: r.ID.Namespace, Wait: r.Wait, Timeout: r.Timeout}, h)
		if err != nil {
			return "", nil, err
		}
		return stack.ActionUninstall, pl, nil
	}
	ch, err := p.Charts.LoadChart(ctx, r)
	if err != nil {
		return "", nil, err
	}
	d := p.Dialect
	if d == "" {
		d = dialect.Helm4
		if latest != nil && latest.Info != nil && latest.Info.Status != release.StatusUninstalled {
			d = latest.Dialect()
		}
	}
	vals, err := r.MergeValues(d)
	if err != nil {
		return "", nil, err
	}
	pl, err := lc.PreviewUpgradeFrom(ctx, action.UpgradeRequest{
		ReleaseSpec: action.ReleaseSpec{
			Chart: ch, Values: vals, ReleaseName: r.ID.Name, Namespace: r.ID.Namespace, Dialect: d,
			WaitSpec: waitSpec(r.Wait, r.WaitForJobs, r.Timeout),
		},
		Install: true, CreateNamespace: r.CreateNamespace, ResetValues: true,
	}, h)
	if err != nil {
		return "", nil, err
	}
	return stack.ActionOf(pl, latest), pl, nil
}
