package stackrun

import (
	"context"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// sharedReads is a cluster whose whole-namespace LISTs (no label selector)
// are made once and handed to every caller, for one pass over a stack
// (planning it, or checking a saved plan): the releases of a namespace read
// their live objects kind by kind, and each would otherwise list the same
// kinds again, Secrets holding every release record among them. A plan made
// from a LIST a moment older is no less exact: it records the
// resourceVersion it saw, checked again before anything is applied.
// Everything else goes to the cluster.
type sharedReads struct {
	ports.Cluster
	mu    sync.Mutex
	lists map[listKey]*sharedList
}

type listKey struct{ apiVersion, kind, namespace string }

// sharedList is one LIST, made by the first caller while the others wait.
type sharedList struct {
	done  chan struct{}
	items []ports.Object
	err   error
}

func shareReads(c ports.Cluster) *sharedReads {
	return &sharedReads{Cluster: c, lists: map[listKey]*sharedList{}}
}

// List lists through the cluster once per kind and namespace; each caller
// gets its own copy of the objects, which planning may change.
func (s *sharedReads) List(ctx context.Context, apiVersion, kind, namespace, selector string) ([]ports.Object, error) {
	if selector != "" {
		return s.Cluster.List(ctx, apiVersion, kind, namespace, selector)
	}
	k := listKey{apiVersion, kind, namespace}
	s.mu.Lock()
	l, ok := s.lists[k]
	if !ok {
		l = &sharedList{done: make(chan struct{})}
		s.lists[k] = l
	}
	s.mu.Unlock()
	if !ok {
		l.items, l.err = s.Cluster.List(ctx, apiVersion, kind, namespace, selector)
		close(l.done)
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if l.err != nil {
		return nil, l.err
	}
	out := make([]ports.Object, len(l.items))
	for i, o := range l.items {
		out[i] = ports.Object(values.DeepCopy(map[string]any(o)).(map[string]any))
	}
	return out, nil
}

// sharedTargets hand, per context, the lifecycle of Targets reading through
// sharedReads: one pass over a stack.
type sharedTargets struct {
	Targets
	mu         sync.Mutex
	lifecycles map[string]*action.Lifecycle
}

func (t *sharedTargets) Lifecycle(ctx context.Context, kubeContext string) (*action.Lifecycle, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if lc, ok := t.lifecycles[kubeContext]; ok {
		return lc, nil
	}
	base, err := t.Targets.Lifecycle(ctx, kubeContext)
	if err != nil {
		return nil, err
	}
	lc := withSharedReads(base)
	t.lifecycles[kubeContext] = lc
	return lc, nil
}

// withSharedReads is a copy of lc reading through sharedReads.
func withSharedReads(lc *action.Lifecycle) *action.Lifecycle {
	c := *lc
	if lc.Cluster != nil {
		c.Cluster = shareReads(lc.Cluster)
	}
	return &c
}
