package cluster

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// WaitFor watches one object (namespace is empty for cluster-scoped ones)
// until cond holds, and returns it. Set a deadline on ctx. On failure the
// error shows the object's last seen status.
func WaitFor(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, namespace, name string, cond func(*unstructured.Unstructured) bool) (*unstructured.Unstructured, error) {
	var last *unstructured.Unstructured
	ev, err := watchtools.UntilWithSync(ctx, listWatch(client, gvr, namespace, name), &unstructured.Unstructured{}, nil,
		func(ev watch.Event) (bool, error) {
			obj, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				return false, nil
			}
			if ev.Type == watch.Deleted {
				return false, fmt.Errorf("%s was deleted", ref(gvr, namespace, name))
			}
			last = obj
			return cond(obj), nil
		})
	if err != nil {
		return nil, fmt.Errorf("wait for %s: %w%s", ref(gvr, namespace, name), err, lastStatus(last))
	}
	return ev.Object.(*unstructured.Unstructured), nil
}

// WaitGone watches one object until it no longer exists.
func WaitGone(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, namespace, name string) error {
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	var last *unstructured.Unstructured
	_, err := watchtools.UntilWithSync(ctx, listWatch(client, gvr, namespace, name), &unstructured.Unstructured{},
		func(store cache.Store) (bool, error) {
			_, exists, err := store.GetByKey(key)
			return !exists, err
		},
		func(ev watch.Event) (bool, error) {
			if obj, ok := ev.Object.(*unstructured.Unstructured); ok {
				last = obj
			}
			return ev.Type == watch.Deleted, nil
		})
	if err != nil {
		return fmt.Errorf("wait for %s to be gone: %w%s", ref(gvr, namespace, name), err, lastStatus(last))
	}
	return nil
}

// ConditionTrue reports whether obj has status.conditions[type=condType]
// with status "True", the way Deployments, Jobs, CRDs and Nodes report.
func ConditionTrue(obj *unstructured.Unstructured, condType string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == condType {
			return m["status"] == "True"
		}
	}
	return false
}

func listWatch(client dynamic.Interface, gvr schema.GroupVersionResource, namespace, name string) *cache.ListWatch {
	res := client.Resource(gvr).Namespace(namespace)
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = selector
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = selector
			return res.Watch(ctx, opts)
		},
	}
}

func ref(gvr schema.GroupVersionResource, namespace, name string) string {
	if namespace == "" {
		return gvr.Resource + "/" + name
	}
	return gvr.Resource + " " + namespace + "/" + name
}

func lastStatus(obj *unstructured.Unstructured) string {
	if obj == nil {
		return " (never seen)"
	}
	status, ok := obj.Object["status"]
	if !ok {
		return " (no status)"
	}
	data, err := json.Marshal(status)
	if err != nil {
		return ""
	}
	return "; last status: " + string(data)
}
