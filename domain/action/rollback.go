package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// RollbackRequest rolls a release back to an earlier revision.
type RollbackRequest struct {
	ReleaseName string
	Namespace   string
	// Revision to roll back to; 0 is the one before the latest.
	Revision int
	WaitSpec
	NoHooks        bool
	ForceReplace   bool
	ForceConflicts bool
	CleanupOnFail  bool
	DryRun         bool
	HistoryMax     int
}

// Rollback deploys an earlier revision's chart, values and manifest as a new revision.
func (l *Lifecycle) Rollback(ctx context.Context, req RollbackRequest) (*release.Release, error) {
	if err := ValidateReleaseName(req.ReleaseName); err != nil {
		return nil, fmt.Errorf("release name %q: %w", req.ReleaseName, err)
	}
	if !req.DryRun {
		lctx, unlock, err := l.lock(ctx, req.Namespace, req.ReleaseName)
		if err != nil {
			return nil, err
		}
		ctx = lctx
		defer unlock()
	}
	return l.rollback(ctx, req)
}

func (l *Lifecycle) rollback(ctx context.Context, req RollbackRequest) (*release.Release, error) {
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	if len(h) == 0 {
		return nil, fmt.Errorf("release: not found")
	}
	if !req.DryRun {
		if err := l.recoverPending(ctx, h); err != nil {
			return nil, err
		}
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
	now := release.Time{Time: l.now()}
	rel := &release.Release{
		Name: latest.Name, Namespace: latest.Namespace, Chart: target.Chart, Config: target.Config,
		Manifest: target.Manifest, Hooks: target.Hooks, Version: h.NextRevision(), Labels: target.Labels,
		Info: &release.Info{
			FirstDeployed: latest.Info.FirstDeployed, LastDeployed: now, Status: release.StatusPendingRollback,
			Description: fmt.Sprintf("Rollback to %d", want), Notes: target.Info.Notes,
		},
	}
	if req.DryRun {
		return rel, nil
	}
	targetObjs, err := l.objects(ctx, rel.Manifest, rel.Namespace, rel)
	if err != nil {
		return nil, err
	}
	live, err := l.objects(ctx, latest.Manifest, rel.Namespace, rel)
	if err != nil {
		return nil, fmt.Errorf("read the current revision's objects: %w", err)
	}
	if h, err = l.createRevision(ctx, rel, h, req.HistoryMax); err != nil {
		return nil, err
	}
	l.emit(EventPhase, "", fmt.Sprintf("rolling %s back to revision %d as revision %d", rel.Name, want, rel.Version))
	spec := ReleaseSpec{WaitSpec: req.WaitSpec, NoHooks: req.NoHooks, ForceConflicts: req.ForceConflicts}
	err = l.change(ctx, rel, targetObjs, live, spec, release.HookPreRollback, release.HookPostRollback, req.ForceReplace)
	if err != nil {
		ferr := l.record(ctx, rel, release.EventFailed, fmt.Sprintf("Rollback %q failed: %s", rel.Name, err))
		if req.CleanupOnFail {
			_, _ = l.deleteAll(context.WithoutCancel(ctx), minus(targetObjs, live), "", false)
		}
		return rel, errors.Join(err, ferr)
	}
	if err := l.succeed(ctx, rel, h, fmt.Sprintf("Rollback to %d", want)); err != nil {
		return rel, err
	}
	return rel, nil
}
