package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// group is the watched objects of one resource in one namespace.
type group struct {
	gvr       schema.GroupVersionResource
	namespace string
	names     map[string]ports.ObjectRef
}

func (c *Cluster) groups(refs []ports.ObjectRef, skipAlwaysReady bool, checked map[ports.ObjectRef]ports.ReadinessCheck) (map[string]*group, error) {
	out := map[string]*group{}
	for _, r := range refs {
		if _, custom := checked[r]; skipAlwaysReady && alwaysReady[r.Kind] && !custom {
			continue
		}
		m, err := c.mapping(r.APIVersion, r.Kind)
		if err != nil {
			return nil, fmt.Errorf("watch %s: %w", r, err)
		}
		key := m.Resource.String() + "|" + r.Namespace
		g := out[key]
		if g == nil {
			g = &group{gvr: m.Resource, namespace: r.Namespace, names: map[string]ports.ObjectRef{}}
			out[key] = g
		}
		g.names[r.Name] = r
	}
	return out, nil
}

// listWatch lists and watches a group, by name when it holds one object.
func (c *Cluster) listWatch(g *group) *cache.ListWatch {
	var ri dynamic.ResourceInterface = c.dynamic.Resource(g.gvr)
	if g.namespace != "" {
		ri = c.dynamic.Resource(g.gvr).Namespace(g.namespace)
	}
	sel := ""
	if len(g.names) == 1 {
		for n := range g.names {
			sel = fields.OneTermEqualSelector("metadata.name", n).String()
		}
	}
	return &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return ri.List(context.Background(), o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return ri.Watch(context.Background(), o)
		},
	}
}

// tracker holds the last known status of every waited-for object.
type tracker struct {
	mu       sync.Mutex
	status   map[ports.ObjectRef]ports.ObjectStatus
	progress func(ports.ObjectStatus)
}

func (t *tracker) set(s ports.ObjectStatus) {
	t.mu.Lock()
	old, seen := t.status[s.Ref]
	t.status[s.Ref] = s
	t.mu.Unlock()
	if t.progress != nil && (!seen || old != s) {
		t.progress(s)
	}
}

func (t *tracker) pending() []ports.ObjectStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []ports.ObjectStatus
	for _, s := range t.status {
		if !s.Ready {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref.String() < out[j].Ref.String() })
	return out
}

// errFailed ends a watch when an object failed.
type failedError struct{ status ports.ObjectStatus }

func (e *failedError) Error() string { return fmt.Sprintf("%s: %s", e.status.Ref, e.status.Message) }

// WaitReady watches every object until it is ready. One watch serves each
// resource and namespace; kinds without status are not watched.
func (c *Cluster) WaitReady(ctx context.Context, refs []ports.ObjectRef, opts ports.WaitOptions) error {
	groups, err := c.groups(refs, !opts.Completion, opts.Checks)
	if err != nil {
		return err
	}
	tr := &tracker{status: map[ports.ObjectRef]ports.ObjectStatus{}, progress: opts.Progress}
	for _, g := range groups {
		for _, r := range g.names {
			tr.status[r] = ports.ObjectStatus{Ref: r, Message: "not seen yet"}
		}
	}
	err = c.watchGroups(ctx, groups, func(g *group) (func(*unstructured.Unstructured, bool) (bool, error), func() bool) {
		ready := map[string]bool{}
		update := func(u *unstructured.Unstructured, deleted bool) (bool, error) {
			r, ok := g.names[u.GetName()]
			if !ok {
				return len(ready) == len(g.names), nil
			}
			var s ports.ObjectStatus
			check, custom := opts.Checks[r]
			switch {
			case deleted:
				s = ports.ObjectStatus{Ref: r, Message: "deleted"}
			case custom && u.GetDeletionTimestamp() == nil:
				s = check(ports.Object(u.Object))
			default:
				s = readiness(u, opts)
			}
			s.Ref = r
			tr.set(s)
			if s.Failed {
				return false, &failedError{status: s}
			}
			if s.Ready {
				ready[u.GetName()] = true
			} else {
				delete(ready, u.GetName())
			}
			return len(ready) == len(g.names), nil
		}
		return update, func() bool { return len(ready) == len(g.names) }
	})
	var fe *failedError
	if errors.As(err, &fe) {
		return fe
	}
	if err != nil {
		return &ports.NotReadyError{Pending: tr.pending(), Err: err}
	}
	return nil
}

// WaitDeleted watches objects until none of them exists.
func (c *Cluster) WaitDeleted(ctx context.Context, refs []ports.ObjectRef) error {
	groups, err := c.groups(refs, false, nil)
	if err != nil {
		return err
	}
	err = c.watchGroups(ctx, groups, func(g *group) (func(*unstructured.Unstructured, bool) (bool, error), func() bool) {
		present := map[string]bool{}
		update := func(u *unstructured.Unstructured, deleted bool) (bool, error) {
			if _, ok := g.names[u.GetName()]; ok {
				if deleted {
					delete(present, u.GetName())
				} else {
					present[u.GetName()] = true
				}
			}
			return len(present) == 0, nil
		}
		return update, func() bool { return len(present) == 0 }
	})
	if err != nil {
		return fmt.Errorf("wait for deletion: %w", err)
	}
	return nil
}

// watchGroups runs one list-and-watch per group until each group's condition
// holds. track makes, per group, an update function (called with the listed
// objects, then every event) and a done test.
func (c *Cluster) watchGroups(ctx context.Context, groups map[string]*group,
	track func(*group) (func(*unstructured.Unstructured, bool) (bool, error), func() bool)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(groups))
	for _, g := range groups {
		go func() {
			update, done := track(g)
			pre := func(store cache.Store) (bool, error) {
				for _, o := range store.List() {
					if u, ok := o.(*unstructured.Unstructured); ok {
						if _, err := update(u, false); err != nil {
							return false, err
						}
					}
				}
				return done(), nil
			}
			cond := func(ev watch.Event) (bool, error) {
				u, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					return false, nil
				}
				return update(u, ev.Type == watch.Deleted)
			}
			_, err := watchtools.UntilWithSync(ctx, c.listWatch(g), &unstructured.Unstructured{}, pre, cond)
			if err != nil {
				cancel()
			}
			errs <- err
		}()
	}
	var first error
	for range groups {
		if err := <-errs; err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			var fe *failedError
			if first == nil || errors.As(err, &fe) {
				first = err
			}
		}
	}
	if first != nil && errors.Is(first, watchtools.ErrWatchClosed) {
		return ctx.Err()
	}
	if first != nil && ctx.Err() != nil {
		var fe *failedError
		if !errors.As(first, &fe) {
			if cause := context.Cause(ctx); cause != nil {
				return cause
			}
		}
	}
	return first
}
