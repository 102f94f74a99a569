package memcluster

import (
	"context"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

func TestPluralOf(t *testing.T) {
	for kind, want := range map[string]string{
		"ConfigMap": "configmaps", "Ingress": "ingresses", "NetworkPolicy": "networkpolicies",
		"Endpoints": "endpoints", "Gateway": "gateways", "StorageClass": "storageclasses", "Namespace": "namespaces",
	} {
		if got := pluralOf(kind); got != want {
			t.Errorf("pluralOf(%s) = %s, want %s", kind, got, want)
		}
	}
}

func TestReviewAccess(t *testing.T) {
	ctx := context.Background()
	crd := ports.Object{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.example.test"},
		"spec": map[string]any{"group": "example.test", "scope": "Namespaced",
			"names":    map[string]any{"kind": "Gadget", "plural": "gadgets"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}}}},
	}
	tests := map[string]struct {
		allow  []ports.Access
		want   []ports.Access
		denied []string
	}{
		"everything is allowed by default": {
			want: []ports.Access{{Verb: "create", APIVersion: "apps/v1", Kind: "Deployment", Namespace: "a"}},
		},
		"a rule without namespace grants in every namespace and cluster-wide": {
			allow: []ports.Access{{Verb: "*", Resource: "*"}},
			want:  []ports.Access{{Verb: "create", APIVersion: "v1", Kind: "Namespace"}, {Verb: "list", Resource: "secrets", Namespace: "b"}},
		},
		"rules by kind, resources of CRDs by their plural": {
			allow: []ports.Access{{Verb: "patch", APIVersion: "example.test/v1", Kind: "Gadget", Namespace: "a"}},
			want: []ports.Access{
				{Verb: "patch", Group: "example.test", Resource: "gadgets", Namespace: "a"},
				{Verb: "patch", APIVersion: "example.test/v1", Kind: "Gadget", Namespace: "b"},
				{Verb: "create", APIVersion: "example.test/v1", Kind: "Gadget", Namespace: "a"},
				{Verb: "create", APIVersion: "nowhere.test/v1", Kind: "Unserved", Namespace: "a"},
			},
			denied: []string{"patch gadgets.example.test in namespace b", "create gadgets.example.test in namespace a"},
		},
		"Restrict() with nothing allows nothing": {
			allow:  []ports.Access{},
			want:   []ports.Access{{Verb: "get", APIVersion: "v1", Kind: "ConfigMap", Namespace: "a"}},
			denied: []string{"get configmaps in namespace a"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := New()
			if _, err := c.Apply(ctx, crd, ports.ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			if tc.allow != nil {
				c.Restrict(tc.allow...)
			}
			denied, err := c.ReviewAccess(ctx, tc.want)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range denied {
				got = append(got, a.String())
			}
			if len(got) != len(tc.denied) {
				t.Fatalf("denied %q, want %q", got, tc.denied)
			}
			for i := range got {
				if got[i] != tc.denied[i] {
					t.Errorf("denied %q, want %q", got, tc.denied)
				}
			}
		})
	}
}
