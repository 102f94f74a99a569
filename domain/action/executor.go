package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// executor carries out plans: it records revisions, runs hooks, applies and
// deletes objects stage by stage and waits. Its callers hold the release's
// lock (see Lifecycle.unitOfWork).
type executor struct {
	Cluster ports.Cluster
	Store   ports.ReleaseStore
	Clock   ports.Clock
	// Events receives progress; it is called from many goroutines at once.
	Events func(Event)
	// FieldManager is the field manager objects are written as (empty:
	// ports.DefaultFieldManager).
	FieldManager string
}

// ExecOptions are how a plan is carried out; they do not change what it does.
type ExecOptions struct {
	WaitSpec
	// Atomic undoes a failed operation (uninstall, or roll back to the previous revision).
	Atomic bool
	// HistoryMax bounds the revisions kept (0: unlimited).
	HistoryMax    int
	CleanupOnFail bool
	// ServerSide is the operation's --server-side, which the rollback of a
	// failed upgrade (Atomic) passes on, as Helm 4's does.
	ServerSide ServerSide
}

// atomicWord names Atomic in messages as the dialect's Helm does, whichever
// flag the user gave: Helm 4 "rollback-on-failure", Helm 3 "atomic".
func atomicWord(d dialect.Dialect) string {
	if d.IsHelm4() {
		return "rollback-on-failure"
	}
	return "atomic"
}

func (e *executor) now() time.Time { return e.Clock.Now() }

func (e *executor) emit(typ, object, msg string) {
	e.emitEvent(Event{Type: typ, Object: object, Message: msg})
}

// emitEvent sends ev, timed now.
func (e *executor) emitEvent(ev Event) {
	if e.Events != nil {
		ev.Time = e.now()
		e.Events(ev)
	}
}

func (e *executor) progress(s ports.ObjectStatus) {
	if e.Events != nil {
		ready := s.Ready
		e.Events(Event{Time: e.now(), Type: EventStatus, Object: s.Ref.String(), Ready: &ready, Message: s.Message})
	}
}

// record records the outcome of a revision with a context that outlives a
// cancelled operation (Ctrl-C still records the failure).
func (e *executor) record(ctx context.Context, r *release.Release, ev release.Event, desc string) error {
	if err := r.Apply(ev, desc); err != nil {
		return err
	}
	if ev == release.EventSucceeded {
		// Superseding or failing an older revision leaves its time alone:
		// history shows when each revision was deployed.
		r.Info.LastDeployed = release.Time{Time: e.now()}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := e.Store.Update(ctx, r); err != nil {
		return fmt.Errorf("record revision %d of %s as %s: %w", r.Version, r.Name, r.Info.Status, err)
	}
	return nil
}

// succeed supersedes the deployed revisions, marks rel deployed and prunes history.
func (e *executor) succeed(ctx context.Context, rel *release.Release, h release.History, desc string) error {
	for _, old := range h {
		if old.Info != nil && old.Info.Status == release.StatusDeployed {
			if err := e.record(ctx, old, release.EventSuperseded, old.Info.Description); err != nil {
				return err
			}
		}
	}
	return e.record(ctx, rel, release.EventSucceeded, desc)
}

// createRevision stores a new revision, first making room for it as Helm's
// storage does with a history maximum: the oldest revisions go, never the
// last deployed one. It returns the history without the pruned revisions.
func (e *executor) createRevision(ctx context.Context, rel *release.Release, h release.History, historyMax int) (release.History, error) {
	if historyMax > 0 {
		pruned := map[int]bool{}
		for _, r := range h.Prune(historyMax - 1) {
			if _, err := e.Store.Delete(ctx, r.Namespace, r.Name, r.Version); err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
				return h, fmt.Errorf("prune revision %d of %s: %w", r.Version, r.Name, err)
			}
			pruned[r.Version] = true
		}
		h = slices.DeleteFunc(slices.Clone(h), func(r *release.Release) bool { return pruned[r.Version] })
	}
	if err := e.Store.Create(ctx, rel); err != nil {
		return h, fmt.Errorf("store revision %d of %s: %w", rel.Version, rel.Name, err)
	}
	return h, nil
}

// record of a plan, with its storage labels.
func recordOf(pl *plan.Plan) *release.Release {
	rel := pl.Record
	rel.Labels = pl.RecordLabels
	return rel
}

// install records the new revision and deploys it; a failure is recorded.
func (e *executor) install(ctx context.Context, pl *plan.Plan, h release.History, x ExecOptions) (*release.Release, error) {
	rel := recordOf(pl)
	if err := e.applyCRDs(ctx, pl); err != nil {
		return nil, err
	}
	// As Helm: re-using the name of an uninstalled release supersedes its
	// last revision first (a failed one is left as it is).
	if last := h.Latest(); last != nil && last.Info.Status == release.StatusUninstalled {
		if err := e.record(ctx, last, release.EventReplaced, "superseded by new release"); err != nil {
			return nil, err
		}
	}
	if err := e.Store.Create(ctx, rel); err != nil {
		return nil, fmt.Errorf("store revision %d of %s: %w", rel.Version, rel.Name, err)
	}
	e.emit(EventPhase, "", fmt.Sprintf("installing %s revision %d (%d objects)", rel.Name, rel.Version, countDesired(pl)))
	if err := e.deploy(ctx, rel, pl, x.WaitSpec, release.HookPreInstall, release.HookPostInstall); err != nil {
		ferr := e.record(ctx, rel, release.EventFailed, fmt.Sprintf("Release %q failed: %s", rel.Name, err))
		return rel, &failedError{op: pl.Operation, err: err, recordErr: ferr}
	}
	desc := "Install complete"
	if pl.Settings.Description != "" {
		desc = pl.Settings.Description
	}
	return rel, e.record(ctx, rel, release.EventSucceeded, desc)
}

// change records the new revision of an upgrade or rollback and deploys it; a
// failure is recorded.
func (e *executor) change(ctx context.Context, pl *plan.Plan, h release.History, x ExecOptions, pre, post release.HookEvent, desc string) (*release.Release, release.History, error) {
	rel := recordOf(pl)
	// CRDs (--crds upgrade) go first, as an install's: the revision's
	// objects may need what they add.
	if err := e.applyCRDs(ctx, pl); err != nil {
		return nil, h, err
	}
	h, err := e.createRevision(ctx, rel, h, x.HistoryMax)
	if err != nil {
		return nil, h, err
	}
	e.emit(EventPhase, "", changeMessage(pl, rel))
	if err := e.deploy(ctx, rel, pl, x.WaitSpec, pre, post); err != nil {
		var he *HookError
		if pl.Operation == plan.OpRollback && errors.As(err, &he) {
			// Both Helms return from a rollback whose hook failed without
			// recording the failure: the revision stays pending, its hook
			// running, as recorded when the hook started.
			return rel, h, err
		}
		what := "Upgrade"
		if pl.Operation == plan.OpRollback {
			what = "Rollback"
		}
		ferr := e.record(ctx, rel, release.EventFailed, fmt.Sprintf("%s %q failed: %s", what, rel.Name, err))
		var upd *updateError
		updating := errors.As(err, &upd)
		if cur := h.Latest(); pl.Operation == plan.OpRollback && updating && cur != nil && cur.Info != nil {
			// As both Helms: a rollback whose update of the objects failed
			// supersedes the latest revision before it, whatever its status.
			ferr = errors.Join(ferr, e.record(ctx, cur, release.EventSuperseded, cur.Info.Description))
		}
		f := &failedError{op: pl.Operation, updating: updating, err: err, recordErr: ferr}
		if updating {
			f.created = upd.created
		}
		return rel, h, f
	}
	if from := failedStart(h, rel); pl.Operation == plan.OpUpgrade && from != nil {
		// As both Helms: an upgrade of a release with no deployed revision
		// starts from the latest, and supersedes it when it succeeds.
		if err := e.record(ctx, from, release.EventSuperseded, from.Info.Description); err != nil {
			return rel, h, err
		}
	}
	return rel, h, e.succeed(ctx, rel, h, desc)
}

// failedStart is the failed revision before rel that an upgrade started
// from: the latest, when no revision is deployed.
func failedStart(h release.History, rel *release.Release) *release.Release {
	var last *release.Release
	for _, r := range h {
		if r.Info == nil || r.Version >= rel.Version {
			continue
		}
		if r.Info.Status == release.StatusDeployed {
			return nil
		}
		if last == nil || r.Version > last.Version {
			last = r
		}
	}
	if last == nil || last.Info.Status != release.StatusFailed {
		return nil
	}
	return last
}

func changeMessage(pl *plan.Plan, rel *release.Release) string {
	if pl.Operation == plan.OpRollback {
		return fmt.Sprintf("rolling %s back to revision %d as revision %d", rel.Name, pl.Release.Target, rel.Version)
	}
	return fmt.Sprintf("upgrading %s to revision %d (%d objects)", rel.Name, rel.Version, countDesired(pl))
}

// countDesired counts the objects a revision sets.
func countDesired(pl *plan.Plan) int {
	n := 0
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if s.Action != plan.ActionDelete && s.Desired != nil {
				n++
			}
		}
	}
	return n
}

// ErrForceReplaceServerSide is Helm 4's refusal of an upgrade or rollback that
// would apply server-side and replace objects too (--force-replace).
var ErrForceReplaceServerSide = errors.New("invalid operation: cannot use server-side apply and force replace together")

// deploy runs the pre hooks, applies the stages (deleting what the release
// lets go), waits, and runs the post hooks.
func (e *executor) deploy(ctx context.Context, rel *release.Release, pl *plan.Plan, w WaitSpec, pre, post release.HookEvent) error {
	if !pl.Settings.NoHooks {
		if err := e.runHooks(ctx, rel, pre, timeoutOf(w), true); err != nil {
			return hookFailure(rel.Dialect(), rel.ApplyMethod == release.ApplyServerSide, err)
		}
	}
	if pl.Operation != plan.OpInstall && pl.Settings.HelmForceReplace && pl.Settings.ForceReplace && rel.ApplyMethod == release.ApplyServerSide {
		// Helm 4 updates with either, never both: after the pre hooks, the
		// revision fails.
		return &updateError{err: ErrForceReplaceServerSide}
	}
	kept := e.reportUnchanged(pl)
	e.announce(pl)
	// A sequenced plan's waits and the final one share the timeout.
	waits := e.stageWaits(pl, w)
	set := applySettings{force: pl.Settings.ForceConflicts, replace: pl.Settings.ForceReplace && !pl.Settings.HelmForceReplace, waits: waits, mode: refusalModeOf(pl, waits), baseline: pl.Operation != plan.OpInstall,
		created: &createdLog{}}
	if err := e.applyStages(ctx, pl.Stages, set); err != nil {
		return &updateError{err: applyFailure(rel.Dialect(), pl, err), created: set.created.list()}
	}
	for _, ref := range kept {
		e.emit(EventWarning, ref.String(), keptNote)
	}
	if err := e.waitReady(ctx, pl, w, waits); err != nil {
		return err
	}
	if !pl.Settings.NoHooks {
		if err := e.runHooks(ctx, rel, post, timeoutOf(w), true); err != nil {
			return hookFailure(rel.Dialect(), rel.ApplyMethod == release.ApplyServerSide, err)
		}
	}
	return nil
}

// waitReady waits for the revision's objects when asked, within the timeout.
func (e *executor) waitReady(ctx context.Context, pl *plan.Plan, w WaitSpec, waits *stageWaits) error {
	if !w.Wait && !w.WaitForJobs {
		return nil
	}
	var refs []ports.ObjectRef
	var steps []plan.Step
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if s.Action == plan.ActionDelete || s.Desired == nil || (!w.Wait && s.Ref.Kind != "Job") {
				continue
			}
			refs = append(refs, s.Ref)
			steps = append(steps, s)
		}
	}
	var cancel context.CancelFunc
	if waits != nil {
		e.emit(EventPhase, "", fmt.Sprintf("waiting for %d object(s) to be ready (%s left of timeout %s)", len(refs), waits.deadline.Sub(e.now()).Round(time.Second), timeoutOf(w)))
		ctx, cancel = context.WithTimeout(ctx, waits.deadline.Sub(e.now()))
	} else {
		e.emit(EventPhase, "", fmt.Sprintf("waiting for %d object(s) to be ready (timeout %s)", len(refs), timeoutOf(w)))
		ctx, cancel = context.WithTimeout(ctx, timeoutOf(w))
	}
	defer cancel()
	return e.Cluster.WaitReady(ctx, refs, ports.WaitOptions{WaitForJobs: w.WaitForJobs, Progress: e.progress, Checks: checksOf(steps)})
}

// stageWaits are the waits of a plan whose stages wait (sequenced), bounded
// together by the operation's timeout; nil for other plans.
func (e *executor) stageWaits(pl *plan.Plan, w WaitSpec) *stageWaits {
	for _, st := range pl.Stages {
		if st.Wait {
			return &stageWaits{deadline: e.now().Add(timeoutOf(w)), now: e.now, progress: e.progress}
		}
	}
	return nil
}
