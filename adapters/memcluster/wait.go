package memcluster

import (
	"context"
	"fmt"
	"sort"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// failedError ends a wait when an object failed, as the kube adapter's does.
type failedError struct{ status ports.ObjectStatus }

func (e *failedError) Error() string { return fmt.Sprintf("%s: %s", e.status.Ref, e.status.Message) }

// WaitReady waits until every object is ready, one fails, or ctx ends (then
// a *ports.NotReadyError lists what is pending). Kinds that are ready once
// they exist are skipped unless opts.Completion, as the kube adapter does;
// objects that do not exist yet are pending.
func (c *Cluster) WaitReady(ctx context.Context, refs []ports.ObjectRef, opts ports.WaitOptions) error {
	c.mu.Lock()
	var watched []ports.ObjectRef
	for _, r := range refs {
		c.record(Call{Verb: VerbWaitReady, Ref: r})
	}
	for _, r := range refs {
		if _, custom := opts.Checks[r]; !opts.Completion && alwaysReady(r.Kind) && !custom {
			continue
		}
		if _, err := c.lookup(r.APIVersion, r.Kind); err != nil {
			c.mu.Unlock()
			return fmt.Errorf("watch %s: %w", r, err)
		}
		watched = append(watched, r)
	}
	c.mu.Unlock()
	reported := map[ports.ObjectRef]ports.ObjectStatus{}
	for {
		c.mu.Lock()
		statuses := make([]ports.ObjectStatus, len(watched))
		for i, r := range watched {
			statuses[i] = c.status(r, opts)
		}
		changed := c.changed
		c.mu.Unlock()
		var pending []ports.ObjectStatus
		var failed *ports.ObjectStatus
		for i, s := range statuses {
			if old, seen := reported[s.Ref]; (!seen || old != s) && opts.Progress != nil {
				opts.Progress(s)
			}
			reported[s.Ref] = s
			if s.Failed && failed == nil {
				failed = &statuses[i]
			}
			if !s.Ready {
				pending = append(pending, s)
			}
		}
		if failed != nil {
			return &failedError{status: *failed}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			sort.Slice(pending, func(i, j int) bool { return pending[i].Ref.String() < pending[j].Ref.String() })
			return &ports.NotReadyError{Pending: dedupe(pending), Err: context.Cause(ctx)}
		case <-changed:
		}
	}
}

func dedupe(l []ports.ObjectStatus) []ports.ObjectStatus {
	out := l[:0]
	for i, s := range l {
		if i == 0 || s.Ref != l[i-1].Ref {
			out = append(out, s)
		}
	}
	return out
}

// status is what a wait knows of one object. Called with mu held.
func (c *Cluster) status(r ports.ObjectRef, opts ports.WaitOptions) ports.ObjectStatus {
	st := ports.ObjectStatus{Ref: r}
	k, err := c.lookup(r.APIVersion, r.Kind)
	var e *entry
	if err == nil {
		e = c.objects[c.keyOf(k, r.Namespace, r.Name)]
	}
	if e == nil {
		st.Message = "not seen yet"
		return st
	}
	if _, deleting := meta(e.obj)["deletionTimestamp"]; deleting {
		st.Message = "being deleted"
		return st
	}
	if check, custom := opts.Checks[r]; custom {
		st = check(c.render(e, r.APIVersion))
		st.Ref = r
		return st
	}
	state, message := Ready, ""
	for _, rule := range c.states {
		if rule.sel.matches(r.Kind, r.Namespace, r.Name) {
			state, message = rule.state, rule.message
		}
	}
	switch state {
	case Pending:
		if r.Kind == "Job" && !opts.WaitForJobs && !opts.Completion {
			st.Ready, st.Message = true, "ready"
			return st
		}
		st.Message = orDefault(message, "not ready")
	case Failed:
		st.Failed = true
		switch r.Kind {
		case "Job":
			st.Message = orDefault(message, "job failed: BackoffLimitExceeded Job has reached the specified backoff limit")
		case "Pod":
			st.Message = orDefault(message, "pod failed: Error")
		case "Deployment":
			st.Message = orDefault(message, "progress deadline exceeded")
		default:
			st.Message = orDefault(message, "failed")
		}
	default:
		st.Ready = true
		switch {
		case r.Kind == "Pod" && opts.Completion:
			st.Message = "succeeded"
		case r.Kind == "Job" && (opts.Completion || opts.WaitForJobs):
			st.Message = "complete"
		default:
			st.Message = orDefault(message, "ready")
		}
	}
	return st
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// WaitDeleted waits until none of the objects exists (objects being deleted
// still exist until their finalizers are removed).
func (c *Cluster) WaitDeleted(ctx context.Context, refs []ports.ObjectRef) error {
	c.mu.Lock()
	for _, r := range refs {
		c.record(Call{Verb: VerbWaitDeleted, Ref: r})
	}
	for _, r := range refs {
		if _, err := c.lookup(r.APIVersion, r.Kind); err != nil {
			c.mu.Unlock()
			return fmt.Errorf("watch %s: %w", r, err)
		}
	}
	c.mu.Unlock()
	for {
		c.mu.Lock()
		present := false
		for _, r := range refs {
			if k, err := c.lookup(r.APIVersion, r.Kind); err == nil && c.objects[c.keyOf(k, r.Namespace, r.Name)] != nil {
				present = true
			}
		}
		changed := c.changed
		c.mu.Unlock()
		if !present {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for deletion: %w", context.Cause(ctx))
		case <-changed:
		}
	}
}
