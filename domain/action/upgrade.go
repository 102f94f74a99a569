package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// UpgradeRequest upgrades a release to a chart and values.
type UpgradeRequest struct {
	ReleaseSpec
	// Install installs the release when it does not exist.
	Install         bool
	CreateNamespace bool
	SkipCRDs        bool
	// CRDs is what happens to the chart's crds/ (--crds): create leaves them
	// alone on an upgrade, as Helm does; SkipCRDs makes it skip.
	CRDs CRDPolicy
	// ReuseValues merges the given values over the current release's, keeping
	// the current chart's defaults; ResetValues uses only the chart's defaults
	// and the given values; ResetThenReuseValues merges over the current values
	// with the new chart's defaults.
	ReuseValues          bool
	ResetValues          bool
	ResetThenReuseValues bool
	// HistoryMax bounds the revisions kept (0: unlimited).
	HistoryMax    int
	CleanupOnFail bool
	// ForceReplace deletes and recreates objects whose change the server refuses.
	ForceReplace bool
	// HelmForceReplace refuses ForceReplace with server-side apply as Helm 4 does.
	HelmForceReplace bool
	// CorrectDrift takes back the fields of the release that changed behind
	// its back, including on objects the upgrade does not change.
	CorrectDrift bool
	// OnInstall, when set, is told that the release does not exist (or was
	// uninstalled) and is installed instead.
	OnInstall func()
}

// notifyInstall tells req.OnInstall, when set, that the upgrade installs.
func notifyInstall(req UpgradeRequest) {
	if req.OnInstall != nil {
		req.OnInstall()
	}
}

// Upgrade deploys a new revision of a release.
func (l *Lifecycle) Upgrade(ctx context.Context, req UpgradeRequest) (*release.Release, error) {
	if err := checkHideSecrets(req.ReleaseSpec); err != nil {
		return nil, err
	}
	if err := releasename.CheckUpgrade(req.ReleaseName); err != nil {
		return nil, err
	}
	pf := l.preflightFor(upgradeExecOptions(req))
	if req.DryRun != DryRunNone {
		h, err := l.history(ctx, req.Namespace, req.ReleaseName)
		if err != nil {
			return nil, err
		}
		pl, err := l.Planner().PlanUpgrade(ctx, req, h, PlanOptions{ServerDryRun: req.DryRun == DryRunServer && !l.Helm, Preflight: pf})
		if err != nil {
			return nil, err
		}
		if pl.Operation == plan.OpInstall {
			notifyInstall(req)
		}
		rel, err := dryRunResult(pl, req.ReleaseSpec)
		if err == nil && pl.Operation == plan.OpUpgrade && req.Description != "" {
			// As both Helms, an upgrade's dry run (not an install's) is
			// described as asked: its status then shows no manifest.
			rel.Info.Description = req.Description
		}
		return rel, err
	}
	var rel *release.Release
	err := l.execute(ctx, operation{
		kind: plan.OpUpgrade, namespace: req.Namespace, name: req.ReleaseName,
		plan: func(ctx context.Context, h release.History) (*plan.Plan, error) {
			return l.Planner().PlanUpgrade(ctx, req, h, PlanOptions{Preflight: pf})
		},
		prepare: func(ctx context.Context) error {
			if !req.Install || !req.CreateNamespace {
				return nil
			}
			return l.createNamespace(ctx, req.Namespace)
		},
		run: func(ctx context.Context, h release.History, pl *plan.Plan) error {
			var err error
			rel, err = l.runPlan(ctx, pl, h, upgradeExecOptions(req), req.OnInstall)
			return err
		},
	}, pf)
	return rel, err
}

// upgradeExecOptions are how an upgrade is carried out.
func upgradeExecOptions(req UpgradeRequest) ExecOptions {
	return ExecOptions{WaitSpec: req.WaitSpec, Atomic: req.Atomic, HistoryMax: req.HistoryMax, CleanupOnFail: req.CleanupOnFail, ServerSide: req.ServerSide}
}

// PlanUpgrade plans an upgrade over history h; a release that does not exist
// (or was uninstalled) plans an install with Install set.
func (p *Planner) PlanUpgrade(ctx context.Context, req UpgradeRequest, h release.History, opts PlanOptions) (*plan.Plan, error) {
	if opts.Command == "" {
		opts.Command = plan.OpUpgrade
	}
	install := InstallRequest{ReleaseSpec: req.ReleaseSpec, CreateNamespace: req.CreateNamespace, SkipCRDs: req.SkipCRDs, CRDs: req.CRDs, ForceReplace: req.ForceReplace}
	if len(h) == 0 {
		if !req.Install {
			return nil, fmt.Errorf("%q has no deployed releases", req.ReleaseName)
		}
		// Said before the install is planned: Helm says so before it renders.
		notifyInstall(req)
		return p.PlanInstall(ctx, install, nil, opts)
	}
	if p.Helm && h.Latest().Info.Status.IsPending() {
		return nil, ErrInProgress
	}
	current := h.LastDeployed()
	if current == nil {
		// Helm upgrades from a failed release when none is deployed.
		latest := h.Latest()
		switch {
		case latest.Info.Status == release.StatusFailed || latest.Info.Status.IsPending():
			current = latest
		case req.Install && latest.Info.Status == release.StatusUninstalled:
			install.Replace = true
			notifyInstall(req)
			return p.PlanInstall(ctx, install, h, opts)
		default:
			return nil, fmt.Errorf("%q has no deployed releases", req.ReleaseName)
		}
	}
	// As Helm 4, auto follows the latest revision's apply method.
	method, err := changeApplyMethod(req.Dialect, req.ServerSide, h.Latest().ApplyMethod)
	if err != nil {
		return nil, err
	}
	pl := p.newPlan(plan.OpUpgrade, opts, req.ReleaseName, req.Namespace, h)
	pl.Settings = plan.Settings{
		ForceConflicts: req.ForceConflicts, ForceReplace: req.ForceReplace, HelmForceReplace: req.HelmForceReplace, NoHooks: req.NoHooks,
		TakeOwnership: req.TakeOwnership, Description: req.Description,
	}
	chartDigest, err := plan.Digest(req.Chart)
	if err != nil {
		return nil, err
	}
	spec := req.ReleaseSpec
	if spec.Values, err = upgradeValues(req, spec.Chart, current); err != nil {
		return nil, err
	}
	spec.Labels = upgradeLabels(h.Latest().Labels, req.Labels)
	var crds crdSet
	if crdPolicy(req.SkipCRDs, req.CRDs) == CRDsUpgrade && spec.DryRun != DryRunClient {
		crds.policy = CRDsUpgrade
		if crds.objs, err = chartCRDs(spec.Chart); err != nil {
			return nil, err
		}
	}
	caps, err := p.capabilities(ctx, spec.DryRun)
	if err != nil {
		return nil, err
	}
	// Rendered as the cluster will be once the chart's CRDs are applied.
	crdScopes, crdVersions := crdAPIs(crds.objs)
	crds.scopes = crdScopes
	rendered, err := p.render(ctx, spec, withAPIVersions(caps, crdVersions), h.NextRevision(), true)
	if err != nil {
		return nil, err
	}
	pl.LookedUp = rendered.LookedUp
	rel := p.newRevision(spec, rendered, h.NextRevision(), release.StatusPendingUpgrade, "Preparing upgrade")
	rel.Info.FirstDeployed = current.Info.FirstDeployed
	rel.ApplyMethod = method
	if req.Description != "" {
		rel.Info.Description = req.Description
	}
	if err := setRecord(pl, rel, chartDigest); err != nil {
		return nil, err
	}
	if spec.DryRun == DryRunClient {
		return pl, nil
	}
	// As both Helms, the objects are written over those of the revision the
	// upgrade starts from (the deployed one, rather than a failed one after
	// it): what that one has and the new one drops is deleted.
	if err := p.planChange(ctx, pl, rel, current, h.Latest(), req.TakeOwnership, "unable to continue with update", opts, crds, forcedOrder(req.WaitSpec)); err != nil {
		return nil, err
	}
	if len(crds.objs) > 0 {
		var problems []plan.Problem
		if pl.CRDs, problems, err = p.crdSteps(ctx, crds.objs, crds.policy); err != nil {
			return nil, err
		}
		if err := crdProblems(pl, problems, opts); err != nil {
			return nil, err
		}
	}
	if req.CorrectDrift {
		takeBackDrift(pl, p.FieldManager)
	}
	if !req.NoHooks {
		pl.Hooks = hookRuns(rel, release.HookPreUpgrade, release.HookPostUpgrade)
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

// planChange plans the objects of a revision replacing another (latest),
// the revision applied last being applied (latest, or a failed one after it):
// what the new revision sets, then the deletion of what it no longer has.
// The new revision is sequenced as forced says (see orderOf); what it drops
// is deleted in the reverse order of the one it replaces when that one was
// sequenced.
func (p *Planner) planChange(ctx context.Context, pl *plan.Plan, rel, latest, applied *release.Release, takeOwnership bool, refusal string, opts PlanOptions, crds crdSet, forced string) error {
	sc := scopes{cluster: p.Cluster, planned: crds.scopes}
	src, err := sc.sourcedObjectsOf(ctx, rel.Manifest, rel.Namespace, rel, unservedFor(opts))
	if err != nil {
		// Helm's upgrade checks the new manifest before it says which one
		// failed: its client's words come alone.
		return err
	}
	target := objectsOfSourced(src)
	ord, err := orderOf(rel.Chart, src, forced)
	if err != nil {
		return orderError(err)
	}
	ord.record(rel)
	prevOrd, err := sc.orderRevision(ctx, latest, rel.Namespace, "")
	if err != nil {
		// The order the latest revision was deployed in no longer holds
		// (its chart changed meaning): its objects go in Helm's order.
		prevOrd = nil
	}
	previous, err := sc.objectsOf(ctx, latest.Manifest, rel.Namespace, rel, unservedFor(opts))
	if err != nil {
		return fmt.Errorf("read the current revision's objects: %w", err)
	}
	appliedObjs := previous
	if applied != latest {
		if appliedObjs, err = sc.objectsOf(ctx, applied.Manifest, rel.Namespace, rel, unservedSkip); err != nil {
			return fmt.Errorf("read the latest revision's objects: %w", err)
		}
	}
	if err := p.preflightReads(ctx, opts, pl.Operation, pl.Settings, rel.Namespace, nil, target, previous, crds.objs, crds.policy); err != nil {
		return err
	}
	dropped := minus(previous, target)
	live, err := readLive(ctx, p.Cluster, target, dropped)
	if err != nil {
		return err
	}
	if !takeOwnership {
		if err := checkOwnership(minus(target, previous), live, rel); err != nil {
			return fmt.Errorf("%s: %w", refusal, err)
		}
	}
	steps := takeOverUnchanged(applySteps(target, previous, appliedObjs, live, crds.scopes), p.FieldManager)
	if pl.Settings.ForceReplace && pl.Settings.HelmForceReplace {
		helmReplace(steps)
	}
	pl.Stages = ord.planStages(steps, pl)
	if del := deleteSteps(rel, dropped, live); len(del) > 0 {
		if prevOrd != nil {
			pl.Stages = append(pl.Stages, prevOrd.deleteStages(del)...)
			if pl.Sequencing == nil {
				pl.Sequencing = &plan.Sequencing{Reason: fmt.Sprintf("revision %d was deployed in order: what it has and the new one drops is deleted in reverse order", latest.Version)}
			}
		} else {
			pl.Stages = append(pl.Stages, plan.Stage{Name: "delete", Steps: del})
		}
	}
	return nil
}

// runPlan executes an install, upgrade or rollback plan under the unit of work.
func (l *Lifecycle) runPlan(ctx context.Context, pl *plan.Plan, h release.History, x ExecOptions, onInstall func()) (*release.Release, error) {
	switch pl.Operation {
	case plan.OpInstall:
		if onInstall != nil {
			onInstall()
		}
		x.HistoryMax, x.CleanupOnFail = 0, false
		return l.runInstall(ctx, pl, h, x)
	case plan.OpUpgrade:
		return l.runChange(ctx, pl, h, x, release.HookPreUpgrade, release.HookPostUpgrade, "Upgrade complete")
	case plan.OpRollback:
		return l.runChange(ctx, pl, h, x, release.HookPreRollback, release.HookPostRollback, fmt.Sprintf("Rollback to %d", pl.Release.Target))
	}
	return nil, fmt.Errorf("a %s plan does not deploy a revision", pl.Operation)
}

// runChange executes an upgrade or rollback plan. A failure cleans up what it
// created (--cleanup-on-fail) and, with atomic, rolls back to the revision
// deployed before.
func (l *Lifecycle) runChange(ctx context.Context, pl *plan.Plan, h release.History, x ExecOptions, pre, post release.HookEvent, desc string) (*release.Release, error) {
	if pl.Settings.Description != "" {
		desc = pl.Settings.Description
	}
	// As Helm, a failed upgrade rolls back to the latest revision that was
	// deployed (deployed or superseded).
	var lastGood *release.Release
	for _, r := range h {
		if r.Info != nil && (r.Info.Status == release.StatusDeployed || r.Info.Status == release.StatusSuperseded) &&
			(lastGood == nil || r.Version > lastGood.Version) {
			lastGood = r
		}
	}
	rel, _, err := l.executor().change(ctx, pl, h, x, pre, post, desc)
	var failed *failedError
	if !errors.As(err, &failed) {
		return rel, err
	}
	if x.CleanupOnFail && pl.Operation == plan.OpRollback && failed.updating {
		if err := l.cleanUpRollback(ctx, rel, failed); err != nil {
			return rel, err
		}
	} else if x.CleanupOnFail {
		var created []ports.ObjectRef
		for _, st := range pl.Stages {
			for _, s := range st.Steps {
				if s.Action == plan.ActionCreate {
					created = append(created, s.Ref)
				}
			}
		}
		if len(created) > 0 {
			l.emit(EventPhase, "", fmt.Sprintf("cleaning up %d object(s) created by the failed %s", len(created), pl.Operation))
			_ = l.executor().deleteRefs(context.WithoutCancel(ctx), created, "", false)
		}
	}
	if x.Atomic && pl.Operation == plan.OpUpgrade {
		if lastGood == nil {
			return rel, fmt.Errorf("unable to find a previously successful release when attempting to rollback. original upgrade error: %w", failed.err)
		}
		l.emit(EventPhase, "", fmt.Sprintf("upgrade failed; rolling back to revision %d because of --%s", lastGood.Version, atomicWord(rel.Dialect())))
		// As Helm 4: with the upgrade's hooks setting, --force-replace,
		// --force-conflicts and --server-side (auto follows the revision
		// rolled back to).
		_, rerr := l.rollback(context.WithoutCancel(ctx), RollbackRequest{
			ReleaseName: rel.Name, Namespace: rel.Namespace, Revision: lastGood.Version,
			WaitSpec: WaitSpec{Wait: true, WaitForJobs: x.WaitForJobs, Timeout: x.Timeout}, NoHooks: pl.Settings.NoHooks,
			ForceReplace: pl.Settings.ForceReplace, HelmForceReplace: pl.Settings.HelmForceReplace, ForceConflicts: pl.Settings.ForceConflicts, ServerSide: x.ServerSide,
			HistoryMax: x.HistoryMax,
		})
		if rerr != nil {
			return rel, &rolledBackError{
				words: fmt.Sprintf("an error occurred while rolling back the release. original upgrade error: %s: %s", failed.err, rerr),
				errs:  []error{failed, rerr},
			}
		}
		return rel, &rolledBackError{
			words: fmt.Sprintf("release %s failed, and has been rolled back due to %s being set: %s", rel.Name, atomicWord(rel.Dialect()), failed.err),
			errs:  []error{failed},
		}
	}
	return rel, err
}

// upgradeValues chooses the values of an upgrade with Helm's rules.
func upgradeValues(req UpgradeRequest, ch *chart.Chart, current *release.Release) (map[string]any, error) {
	newVals := req.Values
	switch {
	case req.ResetValues:
		return newVals, nil
	case req.ReuseValues:
		// As Helm: the previous revision's computed values (its chart's
		// defaults coalesced with its config) become the chart's defaults, so
		// the new chart's defaults are not picked up.
		if current.Chart != nil {
			old, err := values.CoalesceFor(req.Dialect, current.Chart, copyMap(current.Config), func(string, ...any) {})
			if err != nil {
				return nil, fmt.Errorf("failed to rebuild old values: %w", err)
			}
			ch.Values = old
		}
		return values.CoalesceTables(copyMap(newVals), copyMap(current.Config), nil), nil
	case req.ResetThenReuseValues:
		return values.CoalesceTables(copyMap(newVals), copyMap(current.Config), nil), nil
	}
	if len(newVals) == 0 && len(current.Config) > 0 {
		return current.Config, nil
	}
	return newVals, nil
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	c, _ := values.DeepCopy(m).(map[string]any)
	return c
}

// upgradeLabels are the labels of an upgrade's revision, as Helm's: the
// latest revision's, with those given (--labels) over them; a label given
// the value "null" is removed.
func upgradeLabels(latest, given map[string]string) map[string]string {
	var out map[string]string
	for _, m := range []map[string]string{latest, given} {
		for k, v := range m {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	for k, v := range out {
		if v == "null" {
			delete(out, k)
		}
	}
	return out
}

// errNoObjectsVisited is both Helms' failure to delete no object at all.
var errNoObjectsVisited = errors.New("object not found, skipping delete: no objects visited")

// cleanUpRollback deletes what a rollback that failed updating its objects
// created (--cleanup-on-fail), as both Helms do; deleting nothing fails in
// Helm (errNoObjectsVisited), and a failed clean-up is what it reports:
// Helm 4 without the rollback's own error, Helm 3 with it.
func (l *Lifecycle) cleanUpRollback(ctx context.Context, rel *release.Release, failed *failedError) error {
	derr := errNoObjectsVisited
	if len(failed.created) > 0 {
		l.emit(EventPhase, "", fmt.Sprintf("cleaning up %d object(s) created by the failed rollback", len(failed.created)))
		derr = l.executor().deleteRefs(context.WithoutCancel(ctx), failed.created, "", false)
	}
	if derr == nil {
		return nil
	}
	words := "an error occurred while cleaning up resources. original rollback error: unable to cleanup resources: " + derr.Error()
	if !rel.Dialect().IsHelm4() {
		words = fmt.Sprintf("an error occurred while cleaning up resources. original rollback error: %s: unable to cleanup resources: %s", failed.err, derr)
	}
	return &rolledBackError{words: words, errs: []error{failed, derr}}
}

// rolledBackError is an atomic upgrade's failure, rolled back (or not: the
// rollback failed too), in Helm's words; it wraps the upgrade's failure and
// the rollback's, in that order.
type rolledBackError struct {
	words string
	errs  []error
}

func (r *rolledBackError) Error() string { return r.words }

func (r *rolledBackError) Unwrap() []error { return r.errs }
