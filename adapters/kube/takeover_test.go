package kube

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
)

// The take-over patch, carried out by the API server's own field manager:
// what Helm (update or apply), an earlier field manager of ours or a create
// wrote becomes the apply's manager's, so that the next apply removes what it
// no longer sets and a later apply by the previous writer's name changes the
// fields without a conflict; other managers keep theirs.
func TestTakeOverPatch(t *testing.T) {
	type write struct {
		manager, object string
		update          bool
	}
	const (
		before  = `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {kept: "1", dropped: "2"}}`
		ours    = `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {kept: "3"}}`
		another = `{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {theirs: "x"}}`
	)
	tests := map[string]struct {
		writes  []write
		manager string
		from    []string
		// want are the managers left, as name/operation, sorted.
		want []string
	}{
		"helm 3's update, applied as helm": {
			writes:  []write{{manager: "helm", object: before, update: true}},
			manager: "helm", from: []string{"helm", "kubectl-chart"},
			want: []string{"helm/Apply"},
		},
		"our earlier manager's apply, applied as helm": {
			writes:  []write{{manager: "kubectl-chart", object: before}},
			manager: "helm", from: []string{"helm", "kubectl-chart"},
			want: []string{"helm/Apply"},
		},
		"helm 4's apply and our earlier apply, applied as a chosen manager": {
			writes:  []write{{manager: "kubectl-chart", object: before}, {manager: "helm", object: before}},
			manager: "mine", from: []string{"mine", "helm", "kubectl-chart"},
			want: []string{"mine/Apply"},
		},
		"our own apply and our create of the same name": {
			writes:  []write{{manager: "helm", object: before, update: true}, {manager: "helm", object: ours}},
			manager: "helm", from: []string{"helm", "kubectl-chart"},
			want: []string{"helm/Apply"},
		},
		"another manager keeps its fields": {
			writes:  []write{{manager: "kubectl-chart", object: before}, {manager: "kubectl-edit", object: another}},
			manager: "helm", from: []string{"helm", "kubectl-chart"},
			want: []string{"helm/Apply", "kubectl-edit/Apply"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fm := managedfieldstest.NewTestFieldManager(managedfields.NewDeducedTypeConverter(), schema.FromAPIVersionAndKind("v1", "ConfigMap"))
			for _, w := range tc.writes {
				var err error
				if w.update {
					err = fm.Update(unstructuredOf(t, w.object), w.manager)
				} else {
					err = fm.Apply(unstructuredOf(t, w.object), w.manager, true)
				}
				if err != nil {
					t.Fatalf("write as %s: %v", w.manager, err)
				}
			}
			if !heldBy(fm.Live().(*unstructured.Unstructured), tc.from, tc.manager) {
				t.Fatal("nothing to take over")
			}
			live := fm.Live().(*unstructured.Unstructured).DeepCopy()
			live.SetResourceVersion("7")
			patch, err := takeOverPatch(live, tc.from, tc.manager)
			if err != nil || patch == nil {
				t.Fatalf("patch = %s, %v", patch, err)
			}
			var ops []struct {
				Op, Path string
				Value    json.RawMessage
			}
			if err := json.Unmarshal(patch, &ops); err != nil {
				t.Fatal(err)
			}
			if len(ops) != 2 || ops[1].Path != "/metadata/resourceVersion" || string(ops[1].Value) != `"7"` {
				t.Fatalf("patch does not guard the resourceVersion: %s", patch)
			}
			var entries []metav1.ManagedFieldsEntry
			if err := json.Unmarshal(ops[0].Value, &entries); err != nil {
				t.Fatal(err)
			}
			patched := fm.Live().(*unstructured.Unstructured).DeepCopy()
			patched.SetManagedFields(entries)
			if err := fm.Update(patched, "patch"); err != nil {
				t.Fatalf("the server's field manager refuses the patched managedFields: %v", err)
			}
			if heldBy(fm.Live().(*unstructured.Unstructured), tc.from, tc.manager) {
				t.Errorf("still held by the previous writers: %v", managerNames(fm.ManagedFields()))
			}
			// The apply that follows removes what it no longer sets.
			if err := fm.Apply(unstructuredOf(t, ours), tc.manager, true); err != nil {
				t.Fatal(err)
			}
			data, _, _ := unstructured.NestedStringMap(fm.Live().(*unstructured.Unstructured).Object, "data")
			if data["dropped"] != "" || data["kept"] != "3" {
				t.Errorf("data after the apply = %v, want kept=3 and no dropped", data)
			}
			if got := managerNames(fm.ManagedFields()); !slices.Equal(got, tc.want) {
				t.Errorf("managers = %v, want %v", got, tc.want)
			}
			// The previous writers' names (Helm's next apply) change the
			// fields without a conflict when the apply's manager is theirs.
			for _, w := range tc.writes {
				if w.manager == tc.manager && !w.update {
					if err := fm.Apply(unstructuredOf(t, strings.Replace(ours, `"3"`, `"4"`, 1)), w.manager, false); err != nil {
						t.Errorf("%s applies again: %v", w.manager, err)
					}
				}
			}
		})
	}
}

func managerNames(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Manager+"/"+string(e.Operation))
	}
	slices.Sort(out)
	return out
}
