package memcluster

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Verbs of recorded calls, one per ports.Cluster method.
const (
	VerbCapabilities = "capabilities"
	VerbNamespaced   = "namespaced"
	VerbApply        = "apply"
	VerbCreate       = "create"
	VerbReplace      = "replace"
	VerbGet          = "get"
	VerbList         = "list"
	VerbGetTable     = "get-table"
	VerbListAs       = "list-as"
	VerbReachable    = "reachable"
	VerbDelete       = "delete"
	VerbWaitReady    = "wait-ready"
	VerbWaitDeleted  = "wait-deleted"
	// VerbInstallCRD is one CRD handed to InstallCRDs, created or not.
	VerbInstallCRD = "install-crd"
	VerbPodLogs    = "pod-logs"
)

// Call is one call through ports.Cluster, recorded as it starts (failed
// calls too). Test hooks (ApplyAs, UpdateAs ...) are not recorded.
type Call struct {
	Verb string
	// Ref is the object; for list, namespaced and pod-logs what names the
	// call (APIVersion and Kind, Namespace); zero for capabilities.
	// WaitReady and WaitDeleted record one call per ref.
	Ref ports.ObjectRef
	// DryRun and Force are the apply's options, Manager its field manager
	// (an install-crd's and a create's too).
	DryRun, Force bool
	Manager       string
	// Propagation is the delete's.
	Propagation ports.Propagation
	// Selector is the list's label selector.
	Selector string
}

// String reads "apply ConfigMap apps/a", with " (dry run)" for dry runs.
func (c Call) String() string {
	s := c.Verb
	if c.Ref != (ports.ObjectRef{}) {
		s += " " + c.Ref.String()
	}
	if c.DryRun {
		s += " (dry run)"
	}
	return s
}

// record appends a call. Called with mu held.
func (c *Cluster) record(call Call) { c.calls = append(c.calls, call) }

// Calls returns the recorded calls in order, only those of the given verbs
// when any are given.
func (c *Cluster) Calls(verbs ...string) []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []Call{}
	for _, call := range c.calls {
		if len(verbs) == 0 || slices.Contains(verbs, call.Verb) {
			out = append(out, call)
		}
	}
	return out
}

// ResetCalls forgets the recorded calls.
func (c *Cluster) ResetCalls() {
	c.mu.Lock()
	c.calls = nil
	c.mu.Unlock()
}

// Selector picks objects for SetState and Objects; empty fields match any.
type Selector struct {
	Kind, Namespace, Name string
}

func (s Selector) matches(kind, namespace, name string) bool {
	return (s.Kind == "" || s.Kind == kind) && (s.Namespace == "" || s.Namespace == namespace) && (s.Name == "" || s.Name == name)
}

// State is what the cluster's missing controllers would make of an object.
type State int

const (
	// Ready is the default: Deployments available, Jobs complete, Pods
	// succeeded once they exist.
	Ready State = iota
	// Pending never becomes ready by itself (a Deployment whose image does
	// not pull, a Service waiting for a load balancer).
	Pending
	// Failed ends waits with an error (a failed Job or Pod, a Deployment
	// past its progress deadline).
	Failed
)

func (s State) String() string {
	switch s {
	case Ready:
		return "ready"
	case Pending:
		return "pending"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

type stateRule struct {
	sel     Selector
	state   State
	message string
}

// SetState sets the state of the objects sel picks, present and future; the
// last matching call wins. message is what waits report ("" for a default).
// Waits under way see the change.
func (c *Cluster) SetState(sel Selector, state State, message string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.states = append(c.states, stateRule{sel: sel, state: state, message: message})
	c.notify()
}

// SetPodLog sets what PodLogs writes for one pod.
func (c *Cluster) SetPodLog(namespace, pod, log string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.podLogs[namespace+"/"+pod] = log
}

// RemoveFinalizers removes every finalizer of an object, as the controller
// that set them would; an object being deleted is then gone.
func (c *Cluster) RemoveFinalizers(_ context.Context, ref ports.ObjectRef) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, err := c.lookup(ref.APIVersion, ref.Kind)
	if err != nil {
		return fmt.Errorf("remove finalizers of %s: %w", ref, err)
	}
	key := c.keyOf(k, ref.Namespace, ref.Name)
	e := c.objects[key]
	if e == nil {
		return fmt.Errorf("remove finalizers of %s: %w", ref, ports.ErrObjectNotFound)
	}
	if len(finalizers(e.obj)) == 0 {
		return nil
	}
	delete(meta(e.obj), "finalizers")
	p := path{{name: "metadata"}, {name: "finalizers"}}.String()
	kept := e.managers[:0:0]
	for _, m := range e.managers {
		delete(m.fields, p)
		if len(m.fields) > 0 {
			kept = append(kept, m)
		}
	}
	e.managers = kept
	meta(e.obj)["resourceVersion"] = c.nextRV()
	if _, deleting := meta(e.obj)["deletionTimestamp"]; deleting {
		c.remove(key)
	}
	c.notify()
	return nil
}

// Objects returns copies of the stored objects sel picks, ordered by kind,
// namespace and name.
func (c *Cluster) Objects(sel Selector) []ports.Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []objKey
	for k := range c.objects {
		if sel.matches(k.kind, k.namespace, k.name) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.group != b.group {
			return a.group < b.group
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
	out := make([]ports.Object, 0, len(keys))
	for _, k := range keys {
		out = append(out, c.render(c.objects[k], ""))
	}
	return out
}

// Names returns the names of the stored objects sel picks, in Objects' order.
func (c *Cluster) Names(sel Selector) []string {
	objs := c.Objects(sel)
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	return out
}
