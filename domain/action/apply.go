package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// applyWorkers bounds concurrent writes of objects of one kind.
const applyWorkers = 32

// applySettings are how the objects of one operation are written.
type applySettings struct {
	force bool
	// replace deletes and recreates objects whose change the server refuses
	// (immutable fields).
	replace bool
	// waits carries out the waits of sequenced stages (nil: none).
	waits *stageWaits
	// keepGoing applies every object even when some are refused, and
	// reports the first refusal after: an install creates what it can, as
	// both Helms' do (their creates run kind by kind, each kind's at once).
	keepGoing bool
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
// the order planned, after the writes of their stage.
func (e *executor) applyStages(ctx context.Context, stages []plan.Stage, set applySettings) error {
	// pending are the objects the current batch (of a sequenced plan) set.
	var pending []plan.Step
	// refused is the first refusal, with keepGoing.
	var refused error
	for _, st := range stages {
		for _, s := range st.Steps {
			if s.Desired != nil && s.Action != plan.ActionDelete {
				pending = append(pending, s)
			}
		}
		var batches [][]plan.Step
		var deletes []plan.Step
		for start := 0; start < len(st.Steps); {
			end := start + 1
			for end < len(st.Steps) && st.Steps[end].Ref.Kind == st.Steps[start].Ref.Kind {
				end++
			}
			var batch []plan.Step
			for _, s := range st.Steps[start:end] {
				switch s.Action {
				case plan.ActionDelete:
					deletes = append(deletes, s)
				case plan.ActionNoOp:
				default:
					batch = append(batch, s)
				}
			}
			if len(batch) > 0 {
				batches = append(batches, batch)
			}
			start = end
		}
		if err := e.applyConcurrently(ctx, batches, set); err != nil {
			if !set.keepGoing {
				return err
			}
			refused = cmp.Or(refused, err)
			continue
		}
		if st.WaitEstablished && len(batches) > 0 {
			var refs []ports.ObjectRef
			for _, b := range batches {
				for _, s := range b {
					refs = append(refs, s.Ref)
				}
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
	return refused
}

// keptNote marks objects left in place by their resource policy.
const keptNote = "kept because of its resource policy"

// applyConcurrently applies batches of different kinds at the same time.
func (e *executor) applyConcurrently(ctx context.Context, batches [][]plan.Step, set applySettings) error {
	if len(batches) == 1 {
		return e.applyBatch(ctx, batches[0], set)
	}
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { errs[i] = e.applyBatch(ctx, b, set) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *executor) applyBatch(ctx context.Context, batch []plan.Step, set applySettings) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan plan.Step)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for range min(applyWorkers, len(batch)) {
		wg.Go(func() {
			for s := range work {
				if err := e.applyStep(ctx, s, set); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						if !set.keepGoing {
							cancel()
						}
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, s := range batch {
		select {
		case work <- s:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
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
