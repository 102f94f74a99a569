package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// applyWorkers bounds concurrent writes of objects of one kind.
const applyWorkers = 32

// refusalMode is what writing a stage does when the server refuses objects.
type refusalMode int

const (
	// stopAtRefusal stops at the first refusal: ours, where each stage must
	// hold before the next (sequenced plans, drift correction).
	stopAtRefusal refusalMode = iota
	// writeAll writes every object and reports every refusal, as both Helms
	// create a fresh install's objects and a hook's: kind by kind, each
	// kind's at once, errors collected.
	writeAll
	// helmUpdate writes as both Helms' update of a release's objects (an
	// upgrade, a rollback, an install that adopts), which goes one object at
	// a time in manifest order: it stops at the first object it fails to
	// create, reporting that alone, and goes on past objects it fails to
	// update, reporting them all in manifest order, then deletes nothing.
	// Only the creates go one by one, in order, each after the ones before
	// it succeeded: the updates before a create run at the same time as it,
	// those after it once it succeeded, so nothing a refused create would
	// have held back is written, and a release without new objects is
	// written as fast as before.
	helmUpdate
)

// applySettings are how the objects of one operation are written.
type applySettings struct {
	force bool
	// replace deletes and recreates objects whose change the server refuses
	// (immutable fields).
	replace bool
	// waits carries out the waits of sequenced stages (nil: none).
	waits *stageWaits
	mode  refusalMode
	// baseline tells of objects adopted (EventBaseline) as they are written:
	// those of an upgrade or a rollback.
	baseline bool
	// created collects the objects created, in the order they were (nil:
	// not collected).
	created *createdLog
}

// createdLog is the objects an update created, safe for concurrent use.
type createdLog struct {
	mu   sync.Mutex
	refs []ports.ObjectRef
}

func (c *createdLog) add(s plan.Step) {
	if c == nil || s.Action != plan.ActionCreate {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refs = append(c.refs, s.Ref)
}

func (c *createdLog) list() []ports.ObjectRef {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.refs)
}

// refusalModeOf is how plan pl's objects are written: as Helm writes a
// release's, unless its stages wait for one another (sequenced, ours).
func refusalModeOf(pl *plan.Plan, waits *stageWaits) refusalMode {
	switch {
	case waits != nil:
		return stopAtRefusal
	case pl.Operation == plan.OpInstall && !adopts(pl):
		return writeAll
	}
	return helmUpdate
}

// reportUnchanged tells what a plan leaves alone: objects already up to date
// and objects kept by their resource policy.
func (e *executor) reportUnchanged(pl *plan.Plan) (kept []ports.ObjectRef) {
	unchanged := 0
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			switch {
			case s.Action != plan.ActionNoOp:
			case s.Desired != nil:
				unchanged++
			case s.Note == keptNote:
				kept = append(kept, s.Ref)
			}
		}
	}
	if unchanged > 0 {
		e.emit(EventPhase, "", fmt.Sprintf("%d object(s) already up to date", unchanged))
	}
	return kept
}

// applyStages carries out stages in order: within a stage, each kind is
// written by its own workers at the same time as the stage's other kinds;
// CRD stages are waited for before the next; delete steps go one by one in
// the order planned, after the writes of their stage. Once the server
// refused an object (writeAll, helmUpdate), the later stages are written but
// neither waited for nor deleted, and the refusals are returned at the end
// (refusals, in manifest order).
func (e *executor) applyStages(ctx context.Context, stages []plan.Stage, set applySettings) error {
	// pending are the objects the current batch (of a sequenced plan) set.
	var pending []plan.Step
	var refused refusals
	for _, st := range stages {
		var writes, deletes []plan.Step
		for _, s := range st.Steps {
			switch s.Action {
			case plan.ActionDelete:
				deletes = append(deletes, s)
			case plan.ActionNoOp:
			default:
				writes = append(writes, s)
			}
			if s.Desired != nil && s.Action != plan.ActionDelete {
				pending = append(pending, s)
			}
		}
		r, err := e.writeStage(ctx, writes, set)
		if err != nil {
			return err
		}
		if refused = append(refused, r...); len(refused) > 0 {
			continue
		}
		if st.WaitEstablished && len(writes) > 0 {
			refs := make([]ports.ObjectRef, len(writes))
			for i, s := range writes {
				refs[i] = s.Ref
			}
			if err := e.Cluster.WaitReady(ctx, refs, ports.WaitOptions{}); err != nil {
				return fmt.Errorf("wait for CRDs: %w", err)
			}
		}
		if len(deletes) > 0 {
			refs := make([]ports.ObjectRef, len(deletes))
			for i, s := range deletes {
				refs[i] = s.Ref
			}
			if err := e.deleteRefs(ctx, refs, "", false); err != nil {
				return fmt.Errorf("delete objects the release no longer has: %w", err)
			}
			if st.Wait && set.waits != nil && hasDeletesOnly(st) {
				if err := e.waitGone(ctx, st, refs, set.waits); err != nil {
					return err
				}
			}
		}
		if st.Wait && set.waits != nil && !hasDeletesOnly(st) {
			if err := e.waitBatch(ctx, st, pending, set.waits); err != nil {
				return err
			}
			pending = nil
		}
	}
	if len(refused) > 0 {
		return refused
	}
	return nil
}

// keptNote marks objects left in place by their resource policy.
const keptNote = "kept because of its resource policy"

// writeStage writes a stage's objects (steps in manifest order), each kind by
// its own workers at the same time as the others, and returns what the
// server refused in manifest order; err is what ends the operation at once:
// the first refusal with stopAtRefusal, a refused create with helmUpdate
// (see refusalMode), a cancelled context.
func (e *executor) writeStage(ctx context.Context, steps []plan.Step, set applySettings) (refused refusals, err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(steps))
	workers := map[string]chan struct{}{}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for i, s := range steps {
		if set.baseline && s.Action == plan.ActionAdopt {
			// Told here, in manifest order, as Helm visits them.
			e.emitEvent(Event{Type: EventBaseline, Object: s.Ref.String(), Ref: s.Ref, Message: "exists, but the revision replaced does not have it: written over as it is"})
		}
		if set.mode == helmUpdate && s.Action == plan.ActionCreate {
			if err := e.applyStep(wctx, s, set); err != nil {
				wg.Wait()
				return nil, err
			}
			set.created.add(s)
			continue
		}
		sem := workers[s.Ref.Kind]
		if sem == nil {
			sem = make(chan struct{}, applyWorkers)
			workers[s.Ref.Kind] = sem
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if wctx.Err() != nil {
				return
			}
			err := e.applyStep(wctx, s, set)
			if err == nil {
				set.created.add(s)
				return
			}
			errs[i] = err
			if set.mode == stopAtRefusal {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			refused = append(refused, err)
		}
	}
	return refused, nil
}

// applyStep writes one object: replaced steps are deleted and created again
// (written whole over the live object with an update, as Helm's --force
// does, when so planned), and with replace set an update the server refuses
// as invalid is too.
func (e *executor) applyStep(ctx context.Context, s plan.Step, set applySettings) error {
	if s.Action == plan.ActionReplace && s.Note == helmReplaceNote {
		if _, err := e.Cluster.Replace(ctx, s.Desired, e.FieldManager); err != nil {
			return err
		}
		e.emit(EventApplied, s.Ref.String(), "")
		return nil
	}
	ao := e.applyOptions(set.force || s.Force)
	var err error
	if s.Action != plan.ActionReplace {
		_, err = e.Cluster.Apply(ctx, s.Desired, ao)
	}
	if s.Action == plan.ActionReplace || (err != nil && set.replace && errors.Is(err, ports.ErrInvalid)) {
		e.emit(EventPhase, s.Ref.String(), "replacing: the change needs a new object")
		if derr := e.Cluster.Delete(ctx, s.Ref, ports.PropagationBackground); derr != nil && !errors.Is(derr, ports.ErrObjectNotFound) {
			return derr
		}
		if werr := e.Cluster.WaitDeleted(ctx, []ports.ObjectRef{s.Ref}); werr != nil {
			return werr
		}
		_, err = e.Cluster.Apply(ctx, s.Desired, ao)
	}
	if err != nil {
		return err
	}
	e.emit(EventApplied, s.Ref.String(), "")
	return nil
}

// applyOptions are how the executor applies: as its field manager, taking
// over Helm's and our earlier manager's fields.
func (e *executor) applyOptions(force bool) ports.ApplyOptions {
	return ports.ApplyOptions{FieldManager: e.FieldManager, ForceConflicts: force, TakeOverFrom: takeOverFrom(e.FieldManager)}
}

// deleteObjects deletes objects in the dialect's uninstall order, leaving
// those with the keep policy; it returns the kept ones and waits for the rest
// to go when asked.
func (e *executor) deleteObjects(ctx context.Context, d dialect.Dialect, objs []ports.Object, prop ports.Propagation, wait bool) (kept []ports.ObjectRef, err error) {
	sorted := inUninstallOrder(d, objs)
	var refs []ports.ObjectRef
	for _, o := range sorted {
		if keptByPolicy(o) {
			kept = append(kept, ports.RefOf(o))
			continue
		}
		refs = append(refs, ports.RefOf(o))
	}
	return kept, e.deleteRefs(ctx, refs, prop, wait)
}

// deleteRefs deletes objects one by one in the order given; what is already
// gone, or of a kind no longer served, counts as deleted.
func (e *executor) deleteRefs(ctx context.Context, refs []ports.ObjectRef, prop ports.Propagation, wait bool) error {
	var deleted []ports.ObjectRef
	var errs []error
	for _, ref := range refs {
		err := e.Cluster.Delete(ctx, ref, prop)
		switch {
		case errors.Is(err, ports.ErrObjectNotFound), errors.Is(err, ports.ErrUnknownKind):
		case err != nil:
			errs = append(errs, err)
		default:
			deleted = append(deleted, ref)
			e.emit(EventDeleted, ref.String(), "")
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if wait && len(deleted) > 0 {
		return e.Cluster.WaitDeleted(ctx, deleted)
	}
	return nil
}
