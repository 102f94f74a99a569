package action

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// RelatedPodsKey groups the pods that a release's objects select, as Helm's
// status does.
const RelatedPodsKey = "v1/Pod(related)"

// LiveResource is one live object of a release, or the pods one of its
// objects selects, under the key Helm's status groups it by.
type LiveResource struct {
	// Key is "<version>/<Kind>" of the manifest's object, or RelatedPodsKey.
	Key string
	// Object is the live object, the list of related pods, or (AsTable) the
	// server's table of either.
	Object ports.Object
}

// LiveResources reads the live objects of a release's manifest and, as
// Helm's status does, the pods their selectors select (each selector's once),
// in the manifest's order, as objects or (AsTable) the server's tables.
func LiveResources(ctx context.Context, cluster ports.Cluster, rel *release.Release, form ports.Form) ([]LiveResource, error) {
	if strings.TrimSpace(rel.Manifest) == "" {
		return nil, nil
	}
	objs, err := scopes{cluster: cluster}.objectsOf(ctx, rel.Manifest, rel.Namespace, nil, unservedFail)
	if err != nil {
		return nil, fmt.Errorf("read manifest of release %q: %w", rel.Name, err)
	}
	var (
		out       []LiveResource
		selectors []map[string]string
	)
	for _, o := range objs {
		ref := ports.RefOf(o)
		var live ports.Object
		if form == ports.AsTable {
			live, err = cluster.GetTable(ctx, ref)
		} else {
			live, err = cluster.Get(ctx, ref)
		}
		// As both Helms: an object that cannot be read (gone, forbidden) is
		// left out of the listing, not an error.
		if err != nil {
			continue
		}
		out = append(out, LiveResource{Key: resourceKey(o), Object: live})
		sel, ok := podSelector(o)
		if !ok || slices.ContainsFunc(selectors, func(seen map[string]string) bool { return maps.Equal(seen, sel) }) {
			continue
		}
		selectors = append(selectors, sel)
		selector := selectorString(sel)
		pods, err := cluster.ListAs(ctx, "v1", "Pod", ref.Namespace, selector, form)
		if err != nil {
			return nil, fmt.Errorf("list pods selected by %q: %w", selector, err)
		}
		out = append(out, LiveResource{Key: RelatedPodsKey, Object: pods})
	}
	return out, nil
}

// resourceKey groups objects as Helm does: "<version>/<Kind>".
func resourceKey(o ports.Object) string {
	v := o.GetAPIVersion()
	if i := strings.LastIndex(v, "/"); i >= 0 {
		v = v[i+1:]
	}
	return v + "/" + o.GetKind()
}

// podSelector is the label selector of the pods an object runs, read where
// both Helms read it, by kind alone: spec.selector of ReplicationControllers,
// spec.selector.matchLabels of Deployments, ReplicaSets, DaemonSets,
// StatefulSets and Jobs. Like Helm, an object of those kinds without one
// (or with one that is not a map of strings) selects every pod of its
// namespace; a Service selects none (Helm lists no pods for it: one without a
// selector listed every pod of the namespace).
func podSelector(o ports.Object) (map[string]string, bool) {
	var path []string
	switch o.GetKind() {
	case "ReplicationController":
		path = []string{"spec", "selector"}
	case "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job":
		path = []string{"spec", "selector", "matchLabels"}
	default:
		return nil, false
	}
	var cur any = map[string]any(o)
	for _, k := range path {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	raw, _ := cur.(map[string]any)
	sel := make(map[string]string, len(raw))
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil, true
		}
		sel[k] = s
	}
	return sel, true
}

// selectorString is a label selector of sel's labels in the API's syntax,
// by key (what apimachinery's labels.Set makes of them).
func selectorString(sel map[string]string) string {
	terms := make([]string, 0, len(sel))
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		terms = append(terms, k+"="+sel[k])
	}
	return strings.Join(terms, ",")
}
