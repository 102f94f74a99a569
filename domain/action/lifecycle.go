package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Lifecycle holds what the mutating use cases drive. Each use case plans first
// (Planner, reading only) and then executes the plan (the executor) inside one
// unit of work: lock, read the history, recover what an interrupted operation
// left, then record and apply.
type Lifecycle struct {
	Cluster ports.Cluster
	Store   ports.ReleaseStore
	// Locker serialises operations on a release; nil runs without a lock.
	Locker ports.ReleaseLocker
	Clock  ports.Clock
	// Holder names this process in the lock.
	Holder ports.LockHolder
	// Events receives progress; it is called from many goroutines at once and
	// must be safe for that. May be nil.
	Events func(Event)
	// ClusterServer identifies the cluster (its API server URL); saved plans
	// are bound to it.
	ClusterServer string
	// RecoverPending marks failed the revisions left pending, however recent
	// (--recover-pending): the user says no operation is still running.
	RecoverPending bool
	// Helm does as both Helms do where kubectl chart differs on purpose
	// (installed as helm): revisions left pending are never recovered, an
	// upgrade over one is refused in Helm's words (ErrInProgress) and every
	// other operation goes on; a --dry-run=server does not ask the API server
	// to dry-run the objects, so it refuses none of them.
	Helm bool
	// SkipPreflight leaves out the check that the caller has every
	// permission an operation needs (--skip-preflight).
	SkipPreflight bool
	// FieldManager is the field manager objects are written as
	// (--field-manager); empty is ports.DefaultFieldManager, Helm's.
	FieldManager string
}

// PendingAbandonedAfter is how old a pending revision must be before it is
// taken for abandoned when nothing else says so: longer than Helm's default
// --timeout (5m) with a margin, so that an operation of Helm or Flux still
// waiting is never run over.
const PendingAbandonedAfter = 10 * time.Minute

// ErrInProgress is a release with a pending revision that may belong to an
// operation still running.
var ErrInProgress = errors.New("another operation (install/upgrade/rollback) is in progress")

// InProgressError names the pending revision that stops an operation.
type InProgressError struct {
	Name     string
	Revision int
	Status   release.Status
	Since    time.Time
}

func (e *InProgressError) Error() string {
	return fmt.Sprintf("%s: revision %d of %s has been %s since %s; if no operation is running any more, run again with --recover-pending (it is recovered by itself after %s)",
		ErrInProgress, e.Revision, e.Name, e.Status, e.Since.UTC().Format(time.RFC3339), PendingAbandonedAfter)
}

// Is makes errors.Is(err, ErrInProgress) true.
func (e *InProgressError) Is(target error) bool { return target == ErrInProgress }

// Event is one step of an operation, for progress displays and -o json.
type Event struct {
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	Object  string    `json:"object,omitempty"`
	Ready   *bool     `json:"ready,omitempty"`
	Message string    `json:"message,omitempty"`
	// Ref is the object of an EventBaseline.
	Ref ports.ObjectRef `json:"-"`
}

// Event types.
const (
	EventPhase     = "phase"
	EventApplied   = "applied"
	EventDeleted   = "deleted"
	EventStatus    = "status"
	EventHook      = "hook"
	EventWarning   = "warning"
	EventRecovered = "recovered"
	// EventBaseline is an object that exists but that the revision an
	// upgrade or rollback replaces does not have: it is written over as it
	// is, which Helm 4 logs.
	EventBaseline = "baseline"
)

// WaitSpec says whether and how long to wait for readiness.
type WaitSpec struct {
	Wait        bool
	WaitForJobs bool
	// Ordered sequences the release (--wait=ordered, HIP-0025) even when its
	// chart declares no order.
	Ordered bool
	// Timeout bounds each wait and each hook (Helm's --timeout, default 5m).
	Timeout time.Duration
}

// timeoutOf is w.Timeout, or Helm's default of 5m when unset.
func timeoutOf(w WaitSpec) time.Duration {
	if w.Timeout <= 0 {
		return 5 * time.Minute
	}
	return w.Timeout
}

func (l *Lifecycle) clock() ports.Clock {
	if l.Clock != nil {
		return l.Clock
	}
	return ports.SystemClock{}
}

// Planner plans on the lifecycle's cluster.
func (l *Lifecycle) Planner() *Planner {
	return &Planner{Cluster: l.Cluster, Clock: l.clock(), ClusterServer: l.ClusterServer, FieldManager: l.FieldManager, Helm: l.Helm}
}

func (l *Lifecycle) executor() *executor {
	return &executor{Cluster: l.Cluster, Store: l.Store, Clock: l.clock(), Events: l.Events, FieldManager: l.FieldManager}
}

func (l *Lifecycle) emit(typ, object, msg string) {
	if l.Events != nil {
		l.Events(Event{Time: l.clock().Now(), Type: typ, Object: object, Message: msg})
	}
}

// ErrLockLost ends an operation whose lock could not be renewed: another
// operation may have taken the release over.
var ErrLockLost = errors.New("the release lock was lost (not renewed in time); stopping")

// unitOfWork runs fn under the release's lock with its history, after marking
// failed the revisions an interrupted operation left pending. An unknown
// release is an empty history.
func (l *Lifecycle) unitOfWork(ctx context.Context, namespace, name string, fn func(context.Context, release.History) error) error {
	ctx, unlock, tookOver, err := l.lock(ctx, namespace, name)
	if err != nil {
		return err
	}
	defer unlock()
	h, err := l.history(ctx, namespace, name)
	if err != nil {
		return err
	}
	if !l.Helm {
		if err := l.recoverPending(ctx, h, tookOver); err != nil {
			return err
		}
	}
	return fn(ctx, h)
}

// operation is a mutating use case: planned, then run under the release's lock.
type operation struct {
	kind            plan.Operation
	namespace, name string
	// plan plans over a history; a nil plan without error means there is
	// nothing to plan (the release does not exist) and run says what that means.
	plan func(context.Context, release.History) (*plan.Plan, error)
	// prepare runs once the preflight passed, before the lock is taken
	// (creating the namespace the lock lives in); may be nil.
	prepare func(context.Context) error
	// run carries the plan out under the lock, with the history read under it.
	run func(context.Context, release.History, *plan.Plan) error
}

// execute carries an operation out. With preflights on, it plans first
// without the lock (the planner only reads), so that a preflight that fails
// refuses the operation before anything is written, the lock's Lease
// included; under the lock that plan is used when the release is still as it
// was planned from, and the operation is planned again otherwise (another
// operation got in between, a pending revision was recovered, or planning
// without the lock failed: its error is then reported as it always was).
func (l *Lifecycle) execute(ctx context.Context, op operation, pf *Preflight) error {
	var pre *plan.Plan
	if pf != nil {
		var err error
		if pre, err = l.planUnlocked(ctx, op, pf); err != nil {
			return err
		}
	}
	if op.prepare != nil {
		if err := op.prepare(ctx); err != nil {
			return err
		}
	}
	return l.unitOfWork(ctx, op.namespace, op.name, func(ctx context.Context, h release.History) error {
		pl := pre
		if pl == nil || !planFrom(pl, h) {
			var err error
			if pl, err = op.plan(ctx, h); err != nil {
				return err
			}
		}
		return op.run(ctx, h, pl)
	})
}

// planUnlocked plans without the lock. It returns nil when planning failed
// for another reason than missing permissions (planned again under the lock).
func (l *Lifecycle) planUnlocked(ctx context.Context, op operation, pf *Preflight) (*plan.Plan, error) {
	h, err := l.history(ctx, op.namespace, op.name)
	if err != nil {
		return nil, l.storeAccessDenied(ctx, op.kind, op.namespace, pf)
	}
	pl, err := op.plan(ctx, h)
	if errors.Is(err, plan.ErrForbidden) {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	return pl, nil
}

// planFrom reports whether pl was planned from the release as h has it: the
// same latest revision in the same status.
func planFrom(pl *plan.Plan, h release.History) bool {
	base, status := 0, release.Status("")
	if latest := h.Latest(); latest != nil {
		base = latest.Version
		if latest.Info != nil {
			status = latest.Info.Status
		}
	}
	return pl.Release.Base == base && pl.Release.BaseStatus == status
}

// lock takes the release's lock and returns a context that ends if the lock is
// lost. When the lock was taken over from a dead holder, that is reported; the
// pending revision it left is recovered by the unit of work.
func (l *Lifecycle) lock(ctx context.Context, namespace, name string) (context.Context, func(), bool, error) {
	if l.Locker == nil {
		return ctx, func() {}, false, nil
	}
	lk, err := l.Locker.Acquire(ctx, namespace, name, l.Holder)
	if err != nil {
		return nil, nil, false, err
	}
	h, tookOver := lk.Recovered()
	if tookOver {
		l.emit(EventRecovered, "", fmt.Sprintf("took over the lock of %s, whose holder is gone (its lease expired or its process ended)", h))
	}
	lctx, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	lost := lk.Lost()
	go func() {
		select {
		case <-lost:
			cancel(ErrLockLost)
		case <-stop:
		}
	}()
	return lctx, func() {
		close(stop)
		cancel(nil)
		rctx, done := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer done()
		_ = lk.Release(rctx)
	}, tookOver, nil
}

// recoverPending marks failed the revisions an interrupted operation left
// pending, when they are provably abandoned: the lock was taken over from a
// holder that is gone (tookOver: it was ours, and it died), the revision is
// older than PendingAbandonedAfter, or the user said so (RecoverPending).
// Otherwise another tool's operation (Helm, Flux) may still be running
// without our lock, and the operation is refused as Helm refuses it.
func (l *Lifecycle) recoverPending(ctx context.Context, h release.History, tookOver bool) error {
	for _, r := range h {
		if r.Info == nil || !r.Info.Status.IsPending() {
			continue
		}
		since := r.Info.LastDeployed.Time
		if !tookOver && !l.RecoverPending && l.clock().Now().Sub(since) < PendingAbandonedAfter {
			return &InProgressError{Name: r.Name, Revision: r.Version, Status: r.Info.Status, Since: since}
		}
		from := r.Info.Status
		if err := r.Apply(release.EventFailed, fmt.Sprintf("%s interrupted; recovered by a later operation", from)); err != nil {
			return err
		}
		if err := l.Store.Update(ctx, r); err != nil {
			return fmt.Errorf("recover revision %d of %s: %w", r.Version, r.Name, err)
		}
		l.emit(EventRecovered, "", fmt.Sprintf("revision %d was left %s by an interrupted operation; marked failed", r.Version, from))
	}
	return nil
}

// history reads a release's history; an unknown release is an empty history.
func (l *Lifecycle) history(ctx context.Context, namespace, name string) (release.History, error) {
	return readHistory(ctx, l.Store, namespace, name)
}

func readHistory(ctx context.Context, store ports.ReleaseStore, namespace, name string) (release.History, error) {
	h, err := store.History(ctx, namespace, name)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read history of release %q: %w", name, err)
	}
	return h, nil
}

func (l *Lifecycle) createNamespace(ctx context.Context, ns string) error {
	o := ports.Object{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns, "labels": map[string]any{"name": ns}},
	}
	if _, err := l.Cluster.Get(ctx, ports.RefOf(o)); err == nil {
		return nil
	}
	if _, err := l.Cluster.Apply(ctx, o, ports.ApplyOptions{FieldManager: l.FieldManager}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}
