package action

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
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
	// OnInstall, when set, is told that the release does not exist (or was
	// uninstalled) and is installed instead.
	OnInstall func()
}

func (req UpgradeRequest) notifyInstall() {
	if req.OnInstall != nil {
		req.OnInstall()
	}
}

// Upgrade deploys a new revision of a release.
func (l *Lifecycle) Upgrade(ctx context.Context, req UpgradeRequest) (*release.Release, error) {
	if err := ValidateReleaseName(req.ReleaseName); err != nil {
		return nil, fmt.Errorf("release name %q: %w", req.ReleaseName, err)
	}
	unlock := func() {}
	if req.DryRun == DryRunNone && req.Install && req.CreateNamespace {
		if err := l.createNamespace(ctx, req.Namespace); err != nil {
			return nil, err
		}
	}
	if req.DryRun == DryRunNone {
		var err error
		if ctx, unlock, err = l.lock(ctx, req.Namespace, req.ReleaseName); err != nil {
			return nil, err
		}
	}
	defer unlock()
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	if len(h) == 0 {
		if !req.Install {
			return nil, fmt.Errorf("%q has no deployed releases", req.ReleaseName)
		}
		req.notifyInstall()
		return l.install(ctx, InstallRequest{ReleaseSpec: req.ReleaseSpec, CreateNamespace: req.CreateNamespace, SkipCRDs: req.SkipCRDs}, nil)
	}
	if req.DryRun == DryRunNone {
		if err := l.recoverPending(ctx, h); err != nil {
			return nil, err
		}
	}
	current := h.LastDeployed()
	if current == nil {
		// Helm upgrades from a failed release when none is deployed.
		if latest := h.Latest(); latest.Info.Status == release.StatusFailed {
			current = latest
		} else if req.Install && latest.Info.Status == release.StatusUninstalled {
			req.notifyInstall()
			return l.install(ctx, InstallRequest{ReleaseSpec: req.ReleaseSpec, CreateNamespace: req.CreateNamespace, SkipCRDs: req.SkipCRDs, Replace: true}, h)
		} else {
			return nil, fmt.Errorf("%q has no deployed releases", req.ReleaseName)
		}
	}
	spec := req.ReleaseSpec
	if spec.Values, err = upgradeValues(req, spec.Chart, current); err != nil {
		return nil, err
	}
	rendered, err := l.render(ctx, spec, h.NextRevision(), true)
	if err != nil {
		return nil, err
	}
	rel := l.newRevision(spec, rendered, h.NextRevision(), release.StatusPendingUpgrade, "Preparing upgrade")
	rel.Info.FirstDeployed = current.Info.FirstDeployed
	if req.Description != "" {
		rel.Info.Description = req.Description
	}
	if req.DryRun == DryRunClient {
		rel.Info.Description = "Dry run complete"
		return rel, nil
	}
	target, err := l.objects(ctx, rel.Manifest, rel.Namespace, rel)
	if err != nil {
		return nil, err
	}
	live, err := l.objects(ctx, h.Latest().Manifest, rel.Namespace, rel)
	if err != nil {
		return nil, fmt.Errorf("read the current revision's objects: %w", err)
	}
	created := minus(target, live)
	if !req.TakeOwnership {
		if err := l.checkOwnership(ctx, created, rel); err != nil {
			return nil, fmt.Errorf("unable to continue with update: %w", err)
		}
	}
	if req.DryRun == DryRunServer {
		if err := l.applyAll(ctx, target, applyOptions{force: req.ForceConflicts, dryRun: true}); err != nil {
			return nil, err
		}
		rel.Info.Description = "Dry run complete"
		return rel, nil
	}
	if h, err = l.createRevision(ctx, rel, h, req.HistoryMax); err != nil {
		return nil, err
	}
	l.emit(EventPhase, "", fmt.Sprintf("upgrading %s to revision %d (%d objects)", rel.Name, rel.Version, len(target)))
	err = l.change(ctx, rel, target, live, spec, release.HookPreUpgrade, release.HookPostUpgrade, req.ForceReplace)
	if err != nil {
		ferr := l.record(ctx, rel, release.EventFailed, fmt.Sprintf("Upgrade %q failed: %s", rel.Name, err))
		if req.CleanupOnFail && len(created) > 0 {
			l.emit(EventPhase, "", fmt.Sprintf("cleaning up %d object(s) created by the failed upgrade", len(created)))
			_, _ = l.deleteAll(context.WithoutCancel(ctx), created, "", false)
		}
		if req.Atomic {
			l.emit(EventPhase, "", fmt.Sprintf("upgrade failed; rolling back to revision %d because of --atomic", current.Version))
			_, rerr := l.rollback(context.WithoutCancel(ctx), RollbackRequest{
				ReleaseName: rel.Name, Namespace: rel.Namespace, Revision: current.Version,
				WaitSpec:     WaitSpec{Wait: true, WaitForJobs: req.WaitForJobs, Timeout: req.Timeout},
				ForceReplace: req.ForceReplace, ForceConflicts: true, HistoryMax: req.HistoryMax,
			})
			if rerr != nil {
				return rel, fmt.Errorf("an error occurred while rolling back the release. original upgrade error: %w: %w", err, rerr)
			}
			return rel, fmt.Errorf("release %s failed, and has been rolled back due to atomic being set: %w", rel.Name, err)
		}
		return rel, errors.Join(err, ferr)
	}
	desc := "Upgrade complete"
	if req.Description != "" {
		desc = req.Description
	}
	if err := l.succeed(ctx, rel, h, desc); err != nil {
		return rel, err
	}
	return rel, nil
}

// change runs the pre hooks, applies the target objects, deletes those of the
// previous revision that the target lacks, waits, and runs the post hooks.
func (l *Lifecycle) change(ctx context.Context, rel *release.Release, target, previous []ports.Object, spec ReleaseSpec, pre, post release.HookEvent, replace bool) error {
	dropped := minus(previous, target)
	if !spec.NoHooks {
		if err := l.runHooks(ctx, rel, pre, spec.timeout()); err != nil {
			return err
		}
	}
	if err := l.applyAll(ctx, l.skipUnchanged(ctx, target, previous), applyOptions{force: spec.ForceConflicts, replace: replace}); err != nil {
		return err
	}
	if kept, err := l.deleteAll(ctx, dropped, "", false); err != nil {
		return fmt.Errorf("delete objects the release no longer has: %w", err)
	} else {
		for _, k := range kept {
			l.emit(EventWarning, k.String(), "kept because of its resource policy")
		}
	}
	if err := l.waitReady(ctx, target, spec.WaitSpec); err != nil {
		return err
	}
	if !spec.NoHooks {
		if err := l.runHooks(ctx, rel, post, spec.timeout()); err != nil {
			return err
		}
	}
	return nil
}

// succeed supersedes the deployed revisions, marks rel deployed and prunes history.
func (l *Lifecycle) succeed(ctx context.Context, rel *release.Release, h release.History, desc string) error {
	for _, old := range h {
		if old.Info != nil && old.Info.Status == release.StatusDeployed {
			if err := l.record(ctx, old, release.EventSuperseded, old.Info.Description); err != nil {
				return err
			}
		}
	}
	return l.record(ctx, rel, release.EventSucceeded, desc)
}

// createRevision stores a new revision, first making room for it as Helm's
// storage does with a history maximum: the oldest revisions go, never the
// last deployed one. It returns the history without the pruned revisions.
func (l *Lifecycle) createRevision(ctx context.Context, rel *release.Release, h release.History, historyMax int) (release.History, error) {
	if historyMax > 0 {
		pruned := map[int]bool{}
		for _, r := range h.Prune(historyMax - 1) {
			if _, err := l.Store.Delete(ctx, r.Namespace, r.Name, r.Version); err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
				return h, fmt.Errorf("prune revision %d of %s: %w", r.Version, r.Name, err)
			}
			pruned[r.Version] = true
		}
		h = slices.DeleteFunc(slices.Clone(h), func(r *release.Release) bool { return pruned[r.Version] })
	}
	if err := l.Store.Create(ctx, rel); err != nil {
		return h, fmt.Errorf("store revision %d of %s: %w", rel.Version, rel.Name, err)
	}
	return h, nil
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
			old, err := values.Coalesce(current.Chart, copyMap(current.Config), func(string, ...any) {})
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
