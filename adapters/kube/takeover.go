package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// takenOver reports whether an apply as manager takes over a managedFields
// entry: one written by a manager in from, with an update (Helm's
// client-side writes, a create), or with an apply under another name (Helm 4,
// an earlier field manager of ours). Entries of subresources (status, scale)
// are left to their writers.
func takenOver(e metav1.ManagedFieldsEntry, from []string, manager string) bool {
	return e.Subresource == "" && slices.Contains(from, e.Manager) &&
		(e.Operation == metav1.ManagedFieldsOperationUpdate || e.Manager != manager)
}

// heldBy reports whether live has entries an apply as manager takes over.
func heldBy(live *unstructured.Unstructured, from []string, manager string) bool {
	return slices.ContainsFunc(live.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool { return takenOver(e, from, manager) })
}

// takeOverPatch is a JSON patch that moves the fields of the entries taken
// over into manager's apply entry (made from the first of them if there is
// none), as kubectl's move from client-side to server-side apply does, so
// that the next apply removes what the applied object no longer sets. Fields
// of an entry of another API version than the apply's are dropped rather
// than mixed in (as kubectl's csaupgrade does). The patch replaces the
// resourceVersion it was computed from, which makes it fail on a concurrent
// write. Nil when nothing is taken over.
func takeOverPatch(live *unstructured.Unstructured, from []string, manager string) ([]byte, error) {
	entries := live.GetManagedFields()
	var kept, moved []metav1.ManagedFieldsEntry
	mine := -1
	for _, e := range entries {
		switch {
		case takenOver(e, from, manager):
			moved = append(moved, e)
		default:
			if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" && mine < 0 {
				mine = len(kept)
			}
			kept = append(kept, e)
		}
	}
	if len(moved) == 0 {
		return nil, nil
	}
	if mine < 0 {
		first := moved[0]
		kept = append(kept, metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: first.APIVersion, Time: first.Time, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte("{}")}})
		mine = len(kept) - 1
	}
	target := &kept[mine]
	set, err := fieldsOf(*target)
	if err != nil {
		return nil, err
	}
	for _, e := range moved {
		if e.APIVersion != target.APIVersion {
			continue
		}
		s, err := fieldsOf(e)
		if err != nil {
			return nil, err
		}
		set = set.Union(s)
	}
	raw, err := set.ToJSON()
	if err != nil {
		return nil, fmt.Errorf("encode the fields of %s: %w", manager, err)
	}
	target.FieldsType, target.FieldsV1 = "FieldsV1", &metav1.FieldsV1{Raw: raw}
	return json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": kept},
		{"op": "replace", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
	})
}

// fieldsOf decodes the field set of a managedFields entry.
func fieldsOf(e metav1.ManagedFieldsEntry) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	if e.FieldsV1 == nil || len(e.FieldsV1.GetRawBytes()) == 0 {
		return set, nil
	}
	if err := set.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
		return nil, fmt.Errorf("decode the fields of %s (%s): %w", e.Manager, e.Operation, err)
	}
	return set, nil
}
