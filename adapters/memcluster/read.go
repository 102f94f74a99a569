package memcluster

import (
	"context"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Reachable is always true of a cluster in memory.
func (c *Cluster) Reachable(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbReachable})
	return nil
}

// GetTable reads the table of one object as an API server makes it for
// kinds without printer columns of their own: name and creation time.
func (c *Cluster) GetTable(_ context.Context, ref ports.ObjectRef) (ports.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbGetTable, Ref: ref})
	obj, err := c.get(ref)
	if err != nil {
		return nil, err
	}
	return table([]ports.Object{obj}, str(obj, "metadata", "resourceVersion")), nil
}

// ListAs reads the objects List reads as their list or its table.
func (c *Cluster) ListAs(_ context.Context, apiVersion, kind, namespace, selector string, form ports.Form) (ports.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbListAs, Ref: ports.ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: namespace}, Selector: selector})
	objs, err := c.list(apiVersion, kind, namespace, selector)
	if err != nil {
		return nil, err
	}
	rv := fmt.Sprint(c.rv)
	if form == ports.AsTable {
		return table(objs, rv), nil
	}
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = map[string]any(o)
	}
	return ports.Object{
		"apiVersion": apiVersion, "kind": kind + "List",
		"metadata": map[string]any{"resourceVersion": rv},
		"items":    items,
	}, nil
}

// table is the API server's default table of objs: a row per object, its
// name and creation time, and the object's metadata.
func table(objs []ports.Object, rv string) ports.Object {
	rows := make([]any, len(objs))
	for i, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		rows[i] = map[string]any{
			"cells": []any{o.GetName(), str(o, "metadata", "creationTimestamp")},
			"object": map[string]any{
				"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
				"metadata": deepCopy(md),
			},
		}
	}
	return ports.Object{
		"kind": "Table", "apiVersion": "meta.k8s.io/v1",
		"metadata": map[string]any{"resourceVersion": rv},
		"columnDefinitions": []any{
			map[string]any{"name": "Name", "type": "string", "format": "name", "description": "Name must be unique within a namespace.", "priority": int64(0)},
			map[string]any{"name": "Created At", "type": "date", "format": "", "description": "CreationTimestamp is a timestamp representing the server time when this object was created.", "priority": int64(0)},
		},
		"rows": rows,
	}
}
