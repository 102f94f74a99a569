package action

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// hooksOf returns the hooks of one event in the order they run: by weight,
// then by name.
func hooksOf(all []*release.Hook, ev release.HookEvent) []*release.Hook {
	var hooks []*release.Hook
	for _, h := range all {
		for _, e := range h.Events {
			if e == ev {
				hooks = append(hooks, h)
				break
			}
		}
	}
	sort.SliceStable(hooks, func(i, j int) bool {
		if hooks[i].Weight != hooks[j].Weight {
			return hooks[i].Weight < hooks[j].Weight
		}
		return hooks[i].Name < hooks[j].Name
	})
	return hooks
}

// runHooks runs a release's hooks of one event in weight order, waiting for
// Jobs and Pods to complete and honouring the delete policies. With stored,
// r is the revision's record, which is stored again as each hook starts, as
// both Helms do: an operation that then ends without recording its outcome
// leaves the hook running in the record.
func (e *executor) runHooks(ctx context.Context, r *release.Release, ev release.HookEvent, timeout time.Duration, stored bool) error {
	var succeeded [][]ports.Object
	for _, h := range hooksOf(r.Hooks, ev) {
		objs, err := e.runHook(ctx, r, h, ev, timeout, stored)
		if err != nil {
			var he *HookError
			if errors.As(err, &he) && he.waited {
				// Both Helms delete the hooks that succeeded before one did
				// not complete, as their policy says, and report the failure.
				_ = e.deleteSucceeded(context.WithoutCancel(ctx), r, ev, succeeded)
			}
			return err
		}
		if hasPolicy(h, release.HookSucceeded) {
			succeeded = append(succeeded, objs)
		}
	}
	// Succeeded hooks go only once every hook of the event ran: later hooks
	// may use earlier ones (a Job running as a hook's ServiceAccount).
	return e.deleteSucceeded(ctx, r, ev, succeeded)
}

// deleteSucceeded deletes the objects of hooks that succeeded.
func (e *executor) deleteSucceeded(ctx context.Context, r *release.Release, ev release.HookEvent, succeeded [][]ports.Object) error {
	for _, objs := range succeeded {
		if _, err := e.deleteObjects(ctx, r.Dialect(), objs, ports.PropagationBackground, false); err != nil {
			return fmt.Errorf("%s hooks: delete after success: %w", ev, err)
		}
	}
	return nil
}

func hasPolicy(h *release.Hook, p release.HookDeletePolicy) bool {
	if len(h.DeletePolicies) == 0 {
		return p == release.HookBeforeHookCreation
	}
	for _, q := range h.DeletePolicies {
		if q == p {
			return true
		}
	}
	return false
}

func (e *executor) runHook(ctx context.Context, r *release.Release, h *release.Hook, ev release.HookEvent, timeout time.Duration, stored bool) ([]ports.Object, error) {
	objs, err := scopes{cluster: e.Cluster}.objectsOf(ctx, h.Manifest, r.Namespace, nil, unservedFail)
	if err != nil {
		return nil, fmt.Errorf("%s hook %s: %w", ev, h.Path, err)
	}
	if hasPolicy(h, release.HookBeforeHookCreation) {
		if _, err := e.deleteObjects(ctx, r.Dialect(), objs, ports.PropagationBackground, true); err != nil {
			return nil, fmt.Errorf("%s hook %s: delete the previous run: %w", ev, h.Path, err)
		}
	}
	if len(h.DeletePolicies) == 0 {
		// Both Helms record the default policy on a hook they run.
		h.DeletePolicies = []release.HookDeletePolicy{release.HookBeforeHookCreation}
	}
	e.emit(EventHook, h.Kind+" "+h.Name, fmt.Sprintf("running %s hook", ev))
	h.LastRun = release.HookExecution{StartedAt: release.Time{Time: e.now()}, Phase: release.HookPhaseRunning}
	if stored {
		// Helm only logs a record it could not store.
		_ = e.Store.Update(context.WithoutCancel(ctx), r)
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := e.writeHook(hctx, r, ev, objs); err != nil {
		// Both Helms return at once: no delete policy applies.
		h.LastRun.CompletedAt = release.Time{Time: e.now()}
		h.LastRun.Phase = release.HookPhaseFailed
		return nil, &HookError{Event: ev, Path: h.Path, Err: err}
	}
	var refs []ports.ObjectRef
	for _, o := range objs {
		if o.GetKind() == "Job" || o.GetKind() == "Pod" {
			refs = append(refs, ports.RefOf(o))
		}
	}
	if len(refs) > 0 {
		err = e.Cluster.WaitReady(hctx, refs, ports.WaitOptions{Completion: true, Progress: e.progress})
	}
	h.LastRun.CompletedAt = release.Time{Time: e.now()}
	if err != nil {
		h.LastRun.Phase = release.HookPhaseFailed
		// Helm words a hook that did not complete from its objects as they
		// are when the wait ends, before a delete policy removes them.
		herr := &HookError{Event: ev, Path: h.Path, Err: err, waited: true, TimedOut: errors.Is(err, context.DeadlineExceeded)}
		herr.Live = e.liveHookObjects(context.WithoutCancel(ctx), objs)
		if hasPolicy(h, release.HookFailed) {
			_, _ = e.deleteObjects(context.WithoutCancel(ctx), r.Dialect(), objs, ports.PropagationBackground, false)
		}
		return nil, herr
	}
	h.LastRun.Phase = release.HookPhaseSucceeded
	e.emit(EventHook, h.Kind+" "+h.Name, fmt.Sprintf("%s hook succeeded", ev))
	return objs, nil
}

// writeHook writes a hook's objects as the release's Helm does: Helm 3
// creates them, so that an object an earlier run left (its delete policy
// kept it) fails the hook; Helm 4 too when its revision applies client-side,
// else, and always when it uninstalls, it applies them server-side.
func (e *executor) writeHook(ctx context.Context, r *release.Release, ev release.HookEvent, objs []ports.Object) error {
	uninstalling := ev == release.HookPreDelete || ev == release.HookPostDelete
	if r.ApplyMethod == release.ApplyServerSide || r.Dialect().IsHelm4() && uninstalling {
		return e.applyObjects(ctx, objs)
	}
	// Both Helms create every object of the hook, whatever the server
	// refuses, and report each refusal.
	var refused refusals
	for _, o := range objs {
		if _, err := e.Cluster.Create(ctx, o, e.FieldManager); err != nil {
			refused = append(refused, err)
		}
	}
	if len(refused) > 0 {
		return refused
	}
	return nil
}

// applyObjects applies a hook's objects in stages, as a release's, taking
// over whatever fields they set.
func (e *executor) applyObjects(ctx context.Context, objs []ports.Object) error {
	steps := applySteps(objs, nil, nil, liveObjects{}, nil)
	for i := range steps {
		steps[i].Action, steps[i].Note = plan.ActionCreate, ""
	}
	return e.applyStages(ctx, stagesOf(steps), applySettings{force: true, mode: writeAll})
}
