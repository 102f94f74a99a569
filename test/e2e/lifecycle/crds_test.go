//go:build e2e

package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// gadgetCRD is a CRD of Gadgets in group, with versions given as
// "NAME[:storage|:unserved] PROPERTIES" (the spec's properties as YAML flow).
func gadgetCRD(group string, versions ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.%s
spec:
  group: %s
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  versions:
`, group, group)
	for _, v := range versions {
		head, props, _ := strings.Cut(v, " ")
		name, flag, _ := strings.Cut(head, ":")
		fmt.Fprintf(&b, "  - name: %s\n    served: %v\n    storage: %v\n", name, flag != "unserved", flag == "storage")
		fmt.Fprintf(&b, "    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: %s}}}}\n", props)
	}
	return b.String()
}

// A CRD v1 with objects; an upgrade adding a field and a version succeeds
// with --crds upgrade; upgrades dropping a stored version or making an
// object invalid are refused, naming the CRD and the object, and change
// nothing; --crds create (Helm's) leaves the CRD alone.
func TestCRDUpgrade(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	group := ns + ".crd.kubectl-chart.dev"
	gadgets := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}
	crdName := "gadgets." + group
	t.Cleanup(func() { _ = env.Dynamic().Resource(crds).Delete(context.Background(), crdName, metav1.DeleteOptions{}) })
	v1 := gadgetCRD(group, "v1:storage {size: {type: integer}, color: {type: string}}")
	chart := func(crd, apiVersion, spec string) string {
		return chartDir(t, "gadgets", map[string]string{
			"crds/gadgets.yaml":     crd,
			"templates/gadget.yaml": fmt.Sprintf("apiVersion: %s/%s\nkind: Gadget\nmetadata:\n  name: g1\nspec: %s\n", group, apiVersion, spec),
		})
	}
	mustRun(t, "install", "gadgets", chart(v1, "v1", "{size: 1}"), "-n", ns)
	legacy := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "legacy", "namespace": ns}, "spec": map[string]any{"size": int64(2), "color": "red"}}}
	if _, err := env.Dynamic().Resource(gadgets).Namespace(ns).Create(t.Context(), legacy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A new field, and a new version stored from now on: upgraded. (The field
	// is in both versions: objects last applied in v1 are converted back to it
	// when applied in v2.)
	v2 := gadgetCRD(group, "v1 {size: {type: integer}, color: {type: string}, shape: {type: string}}",
		"v2:storage {size: {type: integer}, color: {type: string}, shape: {type: string}}")
	d := run(t, nil, "diff", "upgrade", "gadgets", chart(v2, "v2", "{size: 1, shape: round}"), "-n", ns, "--crds", "upgrade", "--no-color")
	if d.code != 0 || !strings.Contains(d.out, "CustomResourceDefinition "+crdName+" (update)") || !strings.Contains(d.out, "+  - name: v2") {
		t.Errorf("diff upgrade --crds upgrade: exit %d\n%s\n%s", d.code, d.out, d.err)
	}
	mustRun(t, "upgrade", "gadgets", chart(v2, "v2", "{size: 1, shape: round}"), "-n", ns, "--crds", "upgrade")
	crd := get(t, crds, "", crdName)
	if stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions"); fmt.Sprint(stored) != "[v1 v2]" {
		t.Errorf("storedVersions after the upgrade: %v", stored)
	}
	g1 := get(t, schema.GroupVersionResource{Group: group, Version: "v2", Resource: "gadgets"}, ns, "g1")
	if shape, _, _ := unstructured.NestedString(g1.Object, "spec", "shape"); shape != "round" {
		t.Errorf("g1 after the upgrade: %v", g1.Object["spec"])
	}
	if got := statuses(t, ns, "gadgets"); got != "1:superseded 2:deployed" {
		t.Errorf("history after the upgrade: %s", got)
	}

	refused := []struct {
		what, crd string
		want      []string
	}{
		{
			what: "dropping stored version v1",
			crd:  gadgetCRD(group, "v2:storage {size: {type: integer}, color: {type: string}, shape: {type: string}}"),
			want: []string{"refusing to upgrade CRDs, nothing was changed: CustomResourceDefinition " + crdName +
				": the new definition drops version v1, which is in status.storedVersions (objects may still be stored in it)"},
		},
		{
			what: "no longer serving stored version v1",
			crd: gadgetCRD(group, "v1:unserved {size: {type: integer}, color: {type: string}, shape: {type: string}}",
				"v2:storage {size: {type: integer}, color: {type: string}, shape: {type: string}}"),
			want: []string{"CustomResourceDefinition " + crdName + ": the new definition stops serving version v1, in which existing objects are stored (status.storedVersions): Gadget " +
				ns + "/g1, Gadget " + ns + "/legacy"},
		},
		{
			what: "a field legacy holds dropped from the schema",
			crd: gadgetCRD(group, "v1 {size: {type: integer}, shape: {type: string}}",
				"v2:storage {size: {type: integer}, shape: {type: string}}"),
			want: []string{
				"CustomResourceDefinition " + crdName + ": Gadget " + ns + "/legacy would not be valid under the new schema of version v1: at '/spec': additional properties 'color' not allowed",
				"CustomResourceDefinition " + crdName + ": Gadget " + ns + "/legacy would not be valid under the new schema of version v2: at '/spec': additional properties 'color' not allowed",
			},
		},
	}
	before := get(t, crds, "", crdName).GetResourceVersion()
	for _, r := range refused {
		res := run(t, nil, "upgrade", "gadgets", chart(r.crd, "v2", "{size: 3, shape: square}"), "-n", ns, "--crds", "upgrade")
		for _, w := range r.want {
			if res.code == 0 || !strings.Contains(res.err, w) {
				t.Errorf("%s: exit %d\n%s\nwant %q", r.what, res.code, res.err, w)
			}
		}
		if rv := get(t, crds, "", crdName).GetResourceVersion(); rv != before {
			t.Errorf("%s: the CRD changed (resourceVersion %s, was %s)", r.what, rv, before)
		}
		if size, _, _ := unstructured.NestedInt64(get(t, gadgets, ns, "g1").Object, "spec", "size"); size != 1 {
			t.Errorf("%s: g1 changed: size %d", r.what, size)
		}
		if got := statuses(t, ns, "gadgets"); got != "1:superseded 2:deployed" {
			t.Errorf("%s: history: %s", r.what, got)
		}
	}

	// Helm's behaviour: an upgrade leaves crds/ alone.
	mustRun(t, "upgrade", "gadgets", chart(refused[0].crd, "v2", "{size: 3, shape: square}"), "-n", ns)
	if rv := get(t, crds, "", crdName).GetResourceVersion(); rv != before {
		t.Errorf("--crds create changed the CRD")
	}
}
