package plan

import "github.com/kubectl-chart/kubectl-chart/ports"

// Normalize is a copy of an object without the metadata the server keeps for
// itself, for comparing and showing objects.
func Normalize(o ports.Object) ports.Object {
	if o == nil {
		return nil
	}
	out := make(ports.Object, len(o))
	for k, v := range o {
		out[k] = v
	}
	if meta, ok := o["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(meta))
		for k, v := range meta {
			m[k] = v
		}
		// Kept by the server for itself: they change on every write and say
		// nothing about what a release sets.
		for _, k := range [...]string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp"} {
			delete(m, k)
		}
		out["metadata"] = m
	}
	return out
}
