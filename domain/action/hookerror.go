package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// HookError is a hook that failed: its objects could not be applied, or did
// not complete.
type HookError struct {
	Event release.HookEvent
	Path  string
	Err   error
	// Live are the hook's objects as they were when waiting for them ended
	// (nil when it did not wait); an object gone by then is left out.
	Live []ports.Object
	// TimedOut is a wait that ran out of time.
	TimedOut bool
	// waited: the objects were written, then did not complete.
	waited bool
}

func (e *HookError) Error() string {
	return fmt.Sprintf("%s hook %s failed: %v", e.Event, e.Path, e.Err)
}

func (e *HookError) Unwrap() error { return e.Err }

// liveHookObjects reads a hook's objects as they are now.
func (e *executor) liveHookObjects(ctx context.Context, objs []ports.Object) []ports.Object {
	var live []ports.Object
	for _, o := range objs {
		if l, err := e.Cluster.Get(ctx, ports.RefOf(o)); err == nil {
			live = append(live, l)
		}
	}
	return live
}

// hookFailure is what a hook that failed says, in the dialect's words: a
// hook whose objects could not be created (Helm 4 naming the object it
// applied server-side when serverSide), and a hook that did not complete, as
// the dialect's Helm waits for hooks (Helm 4 as kstatus tells each object's
// status, Helm 3 as its watch of Jobs and Pods does), with the event named as
// each of Helm's use cases names it; any other failure as it is.
func hookFailure(d dialect.Dialect, serverSide bool, err error) error {
	var he *HookError
	if !errors.As(err, &he) {
		return err
	}
	words, created := hookCreateFailure(d, serverSide, he)
	switch {
	case created:
	case he.Live != nil && (he.TimedOut || anyFailed(he.Live)):
		words = helm3HookWait(he)
		if d.IsHelm4() {
			words = helm4HookWait(he)
		}
	default:
		// Helm's words come from the objects: only when they show why.
		return err
	}
	switch he.Event {
	case release.HookPreInstall, release.HookPostInstall:
		return &wordedError{words: fmt.Sprintf("failed %s: %s", he.Event, words), err: err}
	case release.HookPreUpgrade, release.HookPostUpgrade:
		return &wordedError{words: fmt.Sprintf("%s hooks failed: %s", he.Event, words), err: err}
	}
	return &wordedError{words: words.Error(), err: err}
}

// hookCreateFailure is a hook whose objects the API server refused, as
// Helm's creation of hooks says it: each create's error as the server said
// it, each apply's with Helm 4 naming the object it applied server-side
// (serverSide: the release applies so); Helm 3 lists them, Helm 4 puts them
// one a line. False when the hook failed otherwise.
func hookCreateFailure(d dialect.Dialect, serverSide bool, he *HookError) (error, bool) {
	errs := refusalsOf(he.Err)
	msgs := make([]string, len(errs))
	refused := false
	for i, err := range errs {
		var ce *ports.CreateError
		var ae *ports.ApplyError
		switch {
		case errors.As(err, &ce):
			msgs[i], refused = ce.Err.Error(), true
		case errors.As(err, &ae):
			msgs[i], refused = ae.Err.Error(), true
			if d.IsHelm4() && serverSide {
				msgs[i] = helm4ApplyFailure(ae.Ref, msgs[i])
			}
		default:
			msgs[i] = err.Error()
		}
	}
	if !refused {
		return nil, false
	}
	msg := strings.Join(msgs, "\n")
	if !d.IsHelm4() {
		msg = helm3List(msgs)
	}
	return fmt.Errorf("warning: Hook %s %s failed: %s", he.Event, he.Path, msg), true
}

// helm4HookWait lists each object not current, then the deadline when the
// wait ran out of time, one a line.
func helm4HookWait(he *HookError) error {
	var errs []error
	for _, o := range he.Live {
		status, msg := kstatus(o)
		if status == "Current" {
			continue
		}
		errs = append(errs, fmt.Errorf("resource %s/%s/%s not ready. status: %s, message: %s", o.GetKind(), o.GetNamespace(), o.GetName(), status, msg))
	}
	if he.TimedOut {
		errs = append(errs, context.DeadlineExceeded)
	}
	if len(errs) == 0 {
		return he
	}
	return errors.Join(errs...)
}

// anyFailed reports whether one of the objects shows it failed.
func anyFailed(objs []ports.Object) bool {
	for _, o := range objs {
		if status, _ := kstatus(o); status == "Failed" {
			return true
		}
	}
	return false
}

// kstatus is a hook object's status and message as Helm 4 computes them:
// Jobs and Pods by how they ended, anything else current.
func kstatus(o ports.Object) (status, message string) {
	switch o.GetKind() {
	case "Job":
		spec, _ := o["spec"].(map[string]any)
		st, _ := o["status"].(map[string]any)
		parallelism := intField(spec, "parallelism", 1)
		completions := intField(spec, "completions", parallelism)
		for _, c := range conditions(o) {
			switch {
			case c.typ == "Complete" && c.status == "True":
				return "Current", fmt.Sprintf("Job Completed. succeeded: %d/%d", intField(st, "succeeded", 0), completions)
			case c.typ == "Failed" && c.status == "True":
				return "Failed", fmt.Sprintf("Job Failed. failed: %d/%d", intField(st, "failed", 0), completions)
			}
		}
		return "InProgress", "Job in progress"
	case "Pod":
		switch podPhase(o) {
		case "Succeeded":
			return "Current", fmt.Sprintf("pod %s succeeded", o.GetName())
		case "Failed":
			return "Failed", fmt.Sprintf("pod %s failed", o.GetName())
		}
		return "InProgress", "Pod in progress"
	}
	return "Current", "Resource is current"
}

// helm3HookWait lists what each Job and Pod of the hook says, in the list
// Helm 3 joins them in.
func helm3HookWait(he *HookError) error {
	var points []string
	for _, o := range he.Live {
		var msg string
		switch o.GetKind() {
		case "Job":
			msg = "timed out waiting for the condition"
			for _, c := range conditions(o) {
				if c.typ == "Complete" && c.status == "True" {
					msg = ""
					break
				}
				if c.typ == "Failed" && c.status == "True" {
					msg = fmt.Sprintf("job %s failed: %s", o.GetName(), c.reason)
					break
				}
			}
		case "Pod":
			switch podPhase(o) {
			case "Succeeded":
			case "Failed":
				msg = fmt.Sprintf("pod %s failed", o.GetName())
			default:
				msg = "timed out waiting for the condition"
			}
		}
		if msg != "" {
			points = append(points, msg)
		}
	}
	if len(points) == 0 {
		return he
	}
	return errors.New(helm3List(points)) //nolint:staticcheck // Helm 3's multierror text, blank line included
}

type condition struct{ typ, status, reason string }

// conditions are an object's status conditions, in order.
func conditions(o ports.Object) []condition {
	st, _ := o["status"].(map[string]any)
	list, _ := st["conditions"].([]any)
	var out []condition
	for _, c := range list {
		m, _ := c.(map[string]any)
		typ, _ := m["type"].(string)
		status, _ := m["status"].(string)
		reason, _ := m["reason"].(string)
		out = append(out, condition{typ, status, reason})
	}
	return out
}

func podPhase(o ports.Object) string {
	st, _ := o["status"].(map[string]any)
	phase, _ := st["phase"].(string)
	return phase
}

// intField is an integer field of m, def when absent.
func intField(m map[string]any, key string, def int64) int64 {
	switch v := m[key].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case int:
		return int64(v)
	}
	return def
}
