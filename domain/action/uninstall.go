package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// UninstallRequest removes a release.
type UninstallRequest struct {
	ReleaseName string
	Namespace   string
	// KeepHistory keeps the revisions, the latest marked uninstalled.
	KeepHistory    bool
	IgnoreNotFound bool
	NoHooks        bool
	// Cascade is the deletion propagation (background by default).
	Cascade     ports.Propagation
	Wait        bool
	Timeout     time.Duration
	DryRun      bool
	Description string
}

// UninstallResult is what an uninstall did.
type UninstallResult struct {
	Release *release.Release
	// Kept are the objects left in place by the keep resource policy.
	Kept []ports.ObjectRef
	// NotOwned are the objects left in place because they carry another
	// release's ownership, or none (Helm 4).
	NotOwned []ports.ObjectRef
	// NotFound is set when the release did not exist and that was allowed.
	NotFound bool
}

// Uninstall deletes a release's objects and its history (or marks it uninstalled).
func (l *Lifecycle) Uninstall(ctx context.Context, req UninstallRequest) (*UninstallResult, error) {
	words := releasename.UninstallWords
	if req.DryRun {
		words = releasename.ReadWords
	}
	if err := releasename.Check(req.ReleaseName, words); err != nil {
		return nil, err
	}
	if req.DryRun {
		h, err := l.history(ctx, req.Namespace, req.ReleaseName)
		if err != nil {
			return nil, err
		}
		if len(h) == 0 {
			// Helm's dry run only reads the release: its error is the read's.
			if req.IgnoreNotFound {
				return &UninstallResult{NotFound: true}, nil
			}
			return nil, ports.ErrReleaseNotFound
		}
		return &UninstallResult{Release: h.Latest()}, nil
	}
	w := WaitSpec{Wait: req.Wait, Timeout: req.Timeout}
	pf := l.preflightFor(ExecOptions{WaitSpec: w})
	var res *UninstallResult
	err := l.execute(ctx, operation{
		kind: plan.OpUninstall, namespace: req.Namespace, name: req.ReleaseName,
		plan: func(ctx context.Context, h release.History) (*plan.Plan, error) {
			if len(h) == 0 {
				return nil, nil
			}
			return l.Planner().PlanUninstall(ctx, req, h, PlanOptions{Preflight: pf})
		},
		run: func(ctx context.Context, h release.History, pl *plan.Plan) error {
			var err error
			if len(h) == 0 {
				res, err = notFound(req)
			} else {
				res, err = l.executor().uninstall(ctx, pl, h, w)
			}
			return err
		},
	}, pf)
	return res, err
}

func notFound(req UninstallRequest) (*UninstallResult, error) {
	if req.IgnoreNotFound {
		return &UninstallResult{NotFound: true}, nil
	}
	return nil, fmt.Errorf("uninstall: Release not loaded: %s: %w", req.ReleaseName, ports.ErrReleaseNotFound)
}

// uninstall uninstalls under a unit of work already held (--atomic).
func (l *Lifecycle) uninstall(ctx context.Context, req UninstallRequest) (*UninstallResult, error) {
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	return l.uninstallIn(ctx, req, h)
}

func (l *Lifecycle) uninstallIn(ctx context.Context, req UninstallRequest, h release.History) (*UninstallResult, error) {
	if len(h) == 0 {
		return notFound(req)
	}
	pl, err := l.Planner().PlanUninstall(ctx, req, h, PlanOptions{})
	if err != nil {
		return nil, err
	}
	return l.executor().uninstall(ctx, pl, h, WaitSpec{Wait: req.Wait, Timeout: req.Timeout})
}

// PlanUninstall plans the uninstall of the latest revision of history h.
func (p *Planner) PlanUninstall(ctx context.Context, req UninstallRequest, h release.History, opts PlanOptions) (*plan.Plan, error) {
	if len(h) == 0 {
		return nil, fmt.Errorf("uninstall: Release not loaded: %s: %w", req.ReleaseName, ports.ErrReleaseNotFound)
	}
	rel := h.Latest()
	pl := p.newPlan(plan.OpUninstall, opts, req.ReleaseName, req.Namespace, h)
	pl.Record = rel
	pl.Settings = plan.Settings{NoHooks: req.NoHooks, KeepHistory: req.KeepHistory, Cascade: req.Cascade, Description: req.Description}
	if rel.Info.Status == release.StatusUninstalled {
		if req.KeepHistory {
			return nil, fmt.Errorf("the release named %q is already deleted", req.ReleaseName)
		}
		pl.Settings.Purge = true
		if _, err := p.preflight(ctx, pl, h, opts); err != nil {
			return nil, err
		}
		return pl, nil
	}
	objs, err := scopes{cluster: p.Cluster}.objectsOf(ctx, rel.Manifest, rel.Namespace, nil, unservedSkip)
	if err != nil {
		return nil, err
	}
	if err := p.preflightReads(ctx, opts, plan.OpUninstall, pl.Settings, req.Namespace, h, nil, objs, nil, ""); err != nil {
		return nil, err
	}
	live, err := readLive(ctx, p.Cluster, objs)
	if err != nil {
		return nil, err
	}
	// As HIP-0025: a revision deployed in order is deleted in reverse order.
	// Should its order no longer hold, Helm's uninstall order goes: an
	// uninstall is never refused for it.
	ord, err := scopes{cluster: p.Cluster}.orderRevision(ctx, rel, rel.Namespace, "")
	if err == nil && ord != nil {
		pl.Stages = ord.deleteStages(deleteSteps(rel, objs, live))
		pl.Sequencing = ord.sequencing()
	} else {
		pl.Stages = []plan.Stage{{Name: "delete", Steps: deleteSteps(rel, objs, live)}}
	}
	if !req.NoHooks {
		pl.Hooks = hookRuns(rel, release.HookPreDelete, release.HookPostDelete)
	}
	if _, err := p.preflight(ctx, pl, h, opts); err != nil {
		return nil, err
	}
	return pl, nil
}

// uninstall executes an uninstall plan: it marks the revision uninstalling,
// runs the pre-delete hooks, deletes the objects, runs the post-delete hooks,
// then purges the history or marks the revision uninstalled. Failures go as
// both Helms have them: a pre-delete hook that fails, or objects that could
// not be deleted, end the uninstall there, the revision left uninstalling;
// waiting for the objects to go and the post-delete hooks only add their
// errors to an uninstall that completes.
func (e *executor) uninstall(ctx context.Context, pl *plan.Plan, h release.History, w WaitSpec) (*UninstallResult, error) {
	rel := h.Latest()
	if pl.Settings.Purge {
		return &UninstallResult{Release: rel}, e.purge(ctx, h)
	}
	// An uninstall interrupted before it recorded its outcome left the
	// revision uninstalling: this one carries it on, as Helm does.
	// As both Helms: the deletion time is when this uninstall started.
	rel.Info.Deleted = release.Time{Time: e.now()}
	if rel.Info.Status != release.StatusUninstalling {
		if err := rel.Apply(release.EventUninstallStarted, "Deletion in progress (or silently failed)"); err != nil {
			return nil, err
		}
	}
	rel.Info.Deleted = release.Time{Time: e.now()}
	if err := e.Store.Update(ctx, rel); err != nil {
		return nil, fmt.Errorf("record uninstall of %s: %w", rel.Name, err)
	}
	timeout := timeoutOf(w)
	res := &UninstallResult{Release: rel}
	if !pl.Settings.NoHooks {
		if err := e.runHooks(ctx, rel, release.HookPreDelete, timeout, true); err != nil {
			// Helm 4 creates the hooks of an uninstall server-side.
			return res, hookFailure(rel.Dialect(), true, err)
		}
	}
	var refs []ports.ObjectRef
	perStage := make([][]ports.ObjectRef, len(pl.Stages))
	for i, st := range pl.Stages {
		for _, s := range st.Steps {
			switch {
			case s.Action == plan.ActionDelete || s.Note == alreadyGone:
				refs = append(refs, s.Ref)
				perStage[i] = append(perStage[i], s.Ref)
			case s.Note == keptNote:
				res.Kept = append(res.Kept, s.Ref)
			case s.Note == notOwnedNote:
				res.NotOwned = append(res.NotOwned, s.Ref)
			}
		}
	}
	errs := e.deleteRelease(ctx, pl, refs, perStage, w)
	var deleteErr *deleteError
	if len(errs) > 0 && errors.As(errs[0], &deleteErr) {
		return nil, &wordedError{words: fmt.Sprintf("failed to delete release: %s", rel.Name), err: errs[0]}
	}
	if !pl.Settings.NoHooks {
		if err := e.runHooks(ctx, rel, release.HookPostDelete, timeout, true); err != nil {
			errs = append(errs, hookFailure(rel.Dialect(), true, err))
		}
	}
	desc := pl.Settings.Description
	if desc == "" {
		desc = "Uninstallation complete"
	}
	if pl.Settings.KeepHistory {
		errs = append(errs, e.record(ctx, rel, release.EventUninstalled, desc))
		// As both Helms: no earlier revision stays deployed.
		for _, r := range h {
			if r.Version != rel.Version && r.Info != nil && r.Info.Status == release.StatusDeployed {
				errs = append(errs, e.record(ctx, r, release.EventSuperseded, r.Info.Description))
			}
		}
	} else if err := e.purge(ctx, h); err != nil {
		errs = append(errs, fmt.Errorf("uninstall: Failed to purge the release: %w", err))
	}
	if errs = slices.DeleteFunc(errs, func(err error) bool { return err == nil }); len(errs) > 0 {
		words := make([]string, len(errs))
		for i, err := range errs {
			words[i] = err.Error()
		}
		return res, &wordedError{words: fmt.Sprintf("uninstallation completed with %d error(s): %s", len(errs), strings.Join(words, "; ")), err: errors.Join(errs...)}
	}
	return res, nil
}

// deleteError is objects of a release that could not be deleted.
type deleteError struct{ err error }

func (e *deleteError) Error() string { return e.err.Error() }

func (e *deleteError) Unwrap() error { return e.err }

// deleteRelease deletes an uninstall's objects, in order for a revision
// deployed in order, and waits for them to go when asked: a failed delete is
// a *deleteError, first; what waiting says follows.
func (e *executor) deleteRelease(ctx context.Context, pl *plan.Plan, refs []ports.ObjectRef, perStage [][]ports.ObjectRef, w WaitSpec) []error {
	prop := pl.Settings.Cascade
	if prop == "" {
		prop = ports.PropagationBackground
	}
	wctx, cancel := context.WithTimeout(ctx, timeoutOf(w))
	defer cancel()
	e.announce(pl)
	e.emit(EventPhase, "", fmt.Sprintf("deleting %d object(s)", len(refs)))
	waits := e.stageWaits(pl, w)
	if waits == nil {
		if err := e.deleteRefs(wctx, refs, prop, false); err != nil {
			return []error{&deleteError{err: err}}
		}
		if w.Wait && len(refs) > 0 {
			if err := e.Cluster.WaitDeleted(wctx, refs); err != nil {
				return []error{err}
			}
		}
		return nil
	}
	// A revision deployed in order goes in reverse order, each batch gone
	// before the next is deleted.
	for i, st := range pl.Stages {
		if err := e.deleteRefs(wctx, perStage[i], prop, false); err != nil {
			return []error{&deleteError{err: err}}
		}
		last := i == len(pl.Stages)-1
		switch {
		case st.Wait:
			if err := e.waitGone(wctx, st, perStage[i], waits); err != nil {
				return []error{err}
			}
		case last && w.Wait && len(perStage[i]) > 0:
			if err := e.Cluster.WaitDeleted(wctx, perStage[i]); err != nil {
				return []error{err}
			}
		}
	}
	return nil
}

// purge deletes every revision of a release.
func (e *executor) purge(ctx context.Context, h release.History) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for _, r := range h {
		if _, err := e.Store.Delete(ctx, r.Namespace, r.Name, r.Version); err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
			errs = append(errs, fmt.Errorf("delete revision %d of %s: %w", r.Version, r.Name, err))
		}
	}
	return errors.Join(errs...)
}
