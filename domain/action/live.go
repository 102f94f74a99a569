package action

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// listWorkers bounds concurrent LISTs while reading live objects.
const listWorkers = 8

// liveObjects are the live objects a plan is computed from.
type liveObjects struct {
	objs map[objKey]ports.Object
	// unserved holds the group/kind of kinds the cluster does not serve.
	unserved map[string]bool
}

func (l liveObjects) get(o ports.Object) ports.Object { return l.objs[keyOf(o)] }

func (l liveObjects) served(o ports.Object) bool { return !l.unserved[o.Group()+"/"+o.GetKind()] }

// readLive reads the live state of objects with one LIST per kind and
// namespace, never one GET per object.
func readLive(ctx context.Context, cluster ports.Cluster, objs ...[]ports.Object) (liveObjects, error) {
	type listKey struct{ apiVersion, kind, namespace string }
	var keys []listKey
	seen := map[listKey]bool{}
	for _, set := range objs {
		for _, o := range set {
			k := listKey{o.GetAPIVersion(), o.GetKind(), o.GetNamespace()}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	out := liveObjects{objs: map[objKey]ports.Object{}, unserved: map[string]bool{}}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	work := make(chan listKey)
	for range min(listWorkers, len(keys)) {
		wg.Go(func() {
			for k := range work {
				items, err := cluster.List(ctx, k.apiVersion, k.kind, k.namespace, "")
				mu.Lock()
				switch {
				case errors.Is(err, ports.ErrUnknownKind):
					out.unserved[groupOf(k.apiVersion)+"/"+k.kind] = true
				case err != nil:
					errs = append(errs, fmt.Errorf("read live objects: %w", err))
				default:
					for _, it := range items {
						// A LIST over all namespaces of a cluster-scoped kind
						// returns objects without namespace, as wanted.
						if k.namespace != "" && it.GetNamespace() != k.namespace {
							continue
						}
						out.objs[keyOf(it)] = it
					}
				}
				mu.Unlock()
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	if len(errs) > 0 {
		return out, errors.Join(errs...)
	}
	return out, nil
}

// observed is what a plan remembers of a live object.
func observedOf(live ports.Object) (rv, uid string) {
	meta, _ := live["metadata"].(map[string]any)
	rv, _ = meta["resourceVersion"].(string)
	uid, _ = meta["uid"].(string)
	return rv, uid
}
