package action

import (
	"context"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
)

// RollbackRequest rolls a release back to an earlier revision.
type RollbackRequest struct {
	ReleaseName string
	Namespace   string
	// Revision to roll back to; 0 is the one before the latest.
	Revision int
	WaitSpec
	NoHooks      bool
	ForceReplace bool
	// HelmForceReplace refuses ForceReplace with server-side apply as Helm 4 does.
	HelmForceReplace bool
	ForceConflicts   bool
	CleanupOnFail    bool
	DryRun           bool
	HistoryMax       int
	// ServerSide is --server-side; auto follows the revision rolled back to.
	ServerSide ServerSide
	// Description replaces "Rollback to N" (Helm 4's rollback --description).
	Description string
}

// Rollback deploys an earlier revision's chart, values and manifest as a new revision.
func (l *Lifecycle) Rollback(ctx context.Context, req RollbackRequest) (*release.Release, error) {
	if err := releasename.Check(req.ReleaseName, releasename.RollbackWords); err != nil {
		return nil, err
	}
	if req.DryRun {
		h, err := l.history(ctx, req.Namespace, req.ReleaseName)
		if err != nil {
			return nil, err
		}
		pl, err := l.Planner().PlanRollback(ctx, req, h, PlanOptions{clientOnly: true})
		if err != nil {
			return nil, err
		}
		return recordOf(pl), nil
	}
	x := rollbackExecOptions(req)
	pf := l.preflightFor(x)
	var rel *release.Release
	err := l.execute(ctx, operation{
		kind: plan.OpRollback, namespace: req.Namespace, name: req.ReleaseName,
		plan: func(ctx context.Context, h release.History) (*plan.Plan, error) {
			return l.Planner().PlanRollback(ctx, req, h, PlanOptions{Preflight: pf})
		},
		run: func(ctx context.Context, h release.History, pl *plan.Plan) error {
			var err error
			rel, err = l.runPlan(ctx, pl, h, x, nil)
			return err
		},
	}, pf)
	return rel, err
}

// rollbackExecOptions are how a rollback is carried out.
func rollbackExecOptions(req RollbackRequest) ExecOptions {
	return ExecOptions{WaitSpec: req.WaitSpec, HistoryMax: req.HistoryMax, CleanupOnFail: req.CleanupOnFail}
}

// rollback rolls back under a unit of work already held (--atomic).
func (l *Lifecycle) rollback(ctx context.Context, req RollbackRequest) (*release.Release, error) {
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	return l.rollbackIn(ctx, req, h)
}

func (l *Lifecycle) rollbackIn(ctx context.Context, req RollbackRequest, h release.History) (*release.Release, error) {
	pl, err := l.Planner().PlanRollback(ctx, req, h, PlanOptions{})
	if err != nil {
		return nil, err
	}
	return l.runPlan(ctx, pl, h, rollbackExecOptions(req), nil)
}

// PlanRollback plans a rollback over history h.
func (p *Planner) PlanRollback(ctx context.Context, req RollbackRequest, h release.History, opts PlanOptions) (*plan.Plan, error) {
	if len(h) == 0 {
		return nil, fmt.Errorf("release: not found")
	}
	latest := h.Latest()
	want := req.Revision
	if want == 0 {
		want = latest.Version - 1
	}
	var target *release.Release
	for _, r := range h {
		if r.Version == want {
			target = r
		}
	}
	if want <= 0 || target == nil {
		return nil, fmt.Errorf("release has no %d version", want)
	}
	// As Helm 4, auto follows the apply method of the revision rolled back to;
	// the new revision holds the target's manifest, so it keeps its dialect.
	method, err := changeApplyMethod(target.Dialect(), req.ServerSide, target.ApplyMethod)
	if err != nil {
		return nil, err
	}
	desc := req.Description
	if desc == "" {
		desc = fmt.Sprintf("Rollback to %d", want)
	}
	now := release.Time{Time: p.clock().Now()}
	rel := &release.Release{
		Name: latest.Name, Namespace: latest.Namespace, Chart: target.Chart, Config: target.Config,
		Manifest: target.Manifest, Hooks: cloneHooks(target.Hooks), Version: h.NextRevision(), Labels: target.Labels,
		Info: &release.Info{
			FirstDeployed: latest.Info.FirstDeployed, LastDeployed: now, Status: release.StatusPendingRollback,
			Description: desc, Notes: target.Info.Notes, RollbackRevision: want,
		},
		ApplyMethod: method,
	}
	if !rel.Dialect().IsHelm4() {
		rel.Info.RollbackRevision = 0 // Helm 3 records no such thing
	}
	pl := p.newPlan(plan.OpRollback, opts, req.ReleaseName, req.Namespace, h)
	pl.Release.Target = want
	pl.Settings = plan.Settings{ForceConflicts: req.ForceConflicts, ForceReplace: req.ForceReplace, HelmForceReplace: req.HelmForceReplace, NoHooks: req.NoHooks, Description: req.Description}
	chartDigest, err := plan.Digest(target.Chart)
	if err != nil {
		return nil, err
	}
	if err := setRecord(pl, rel, chartDigest); err != nil {
		return nil, err
	}
	if opts.clientOnly {
		return pl, nil
	}
	// The revision rolled back to is deployed again as it was: ownership is
	// not checked again.
	// As HIP-0025: a rollback follows the order the revision rolled back to
	// was deployed in (or --wait=ordered).
	forced := orderNever
	switch {
	case target.Sequenced():
		forced = reasonRecorded
	case req.Ordered:
		forced = reasonOrdered
	}
	if err := p.planChange(ctx, pl, rel, latest, latest, true, "", opts, crdSet{}, forced); err != nil {
		return nil, err
	}
	if !req.NoHooks {
		pl.Hooks = hookRuns(rel, release.HookPreRollback, release.HookPostRollback)
	}
	permitted, err := p.preflight(ctx, pl, h, opts)
	if err != nil {
		return nil, err
	}
	if opts.ServerDryRun && permitted {
		p.dryRun(ctx, pl, "")
	}
	return pl, nil
}

// cloneHooks copies hooks, so that running them again does not change the
// revision they were copied from.
func cloneHooks(hooks []*release.Hook) []*release.Hook {
	out := make([]*release.Hook, len(hooks))
	for i, h := range hooks {
		c := *h
		out[i] = &c
	}
	return out
}
