package porttest

import (
	"context"
	"reflect"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// testClusterReviewAccess: ReviewAccess returns what the caller may not do,
// with the resource filled in from the kind (and the namespace cleared for
// cluster-scoped kinds), in the order asked; kinds the cluster does not serve
// are left out, resources named directly are reviewed as named.
func testClusterReviewAccess(t *testing.T, ctx context.Context, f ClusterFixture) {
	ns := f.Namespace
	want := []ports.Access{
		{Verb: ports.VerbCreate, APIVersion: "v1", Kind: "ConfigMap", Namespace: ns},
		{Verb: ports.VerbPatch, Resource: "configmaps", Namespace: ns},
		{Verb: ports.VerbCreate, APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns},
		{Verb: ports.VerbDelete, APIVersion: "v1", Kind: "ConfigMap", Namespace: ns},
		{Verb: ports.VerbCreate, APIVersion: "v1", Kind: "Namespace", Namespace: ns},
		{Verb: ports.VerbList, APIVersion: "v1", Kind: "ConfigMap", Namespace: "default"},
		{Verb: ports.VerbCreate, APIVersion: "porttest.kubectl-chart.dev/v1", Kind: "NotServed", Namespace: ns},
		{Verb: ports.VerbCreate, Group: "porttest.kubectl-chart.dev", Resource: "widgets", Namespace: ns},
	}
	denied, err := f.Cluster.ReviewAccess(ctx, want)
	if err != nil {
		t.Fatalf("ReviewAccess as the fixture's caller: %v", err)
	}
	if len(denied) != 0 {
		t.Fatalf("the fixture's caller may do everything; denied: %v", denied)
	}
	if f.Restricted == nil {
		t.Skip("the fixture has no restricted caller")
	}
	rc := f.Restricted(t, []ports.Access{
		{Verb: ports.VerbCreate, Resource: "configmaps", Namespace: ns},
		{Verb: ports.VerbPatch, Resource: "configmaps", Namespace: ns},
		{Verb: ports.VerbGet, Resource: "configmaps", Namespace: ns},
	})
	denied, err = rc.ReviewAccess(ctx, want)
	if err != nil {
		t.Fatalf("ReviewAccess as a restricted caller: %v", err)
	}
	expected := []ports.Access{
		{Verb: ports.VerbCreate, APIVersion: "apps/v1", Kind: "Deployment", Group: "apps", Resource: "deployments", Namespace: ns},
		{Verb: ports.VerbDelete, APIVersion: "v1", Kind: "ConfigMap", Resource: "configmaps", Namespace: ns},
		{Verb: ports.VerbCreate, APIVersion: "v1", Kind: "Namespace", Resource: "namespaces"},
		{Verb: ports.VerbList, APIVersion: "v1", Kind: "ConfigMap", Resource: "configmaps", Namespace: "default"},
		{Verb: ports.VerbCreate, Group: "porttest.kubectl-chart.dev", Resource: "widgets", Namespace: ns},
	}
	if !reflect.DeepEqual(denied, expected) {
		t.Fatalf("denied:\n%v\nwant:\n%v", denied, expected)
	}
	var texts []string
	for _, a := range denied {
		texts = append(texts, a.String())
	}
	wantTexts := []string{
		"create deployments.apps in namespace " + ns,
		"delete configmaps in namespace " + ns,
		"create namespaces (cluster-wide)",
		"list configmaps in namespace default",
		"create widgets.porttest.kubectl-chart.dev in namespace " + ns,
	}
	if !reflect.DeepEqual(texts, wantTexts) {
		t.Errorf("denied permissions read\n%q\nwant\n%q", texts, wantTexts)
	}
	// Asking again gives the same answer (adapters may remember answers).
	again, err := rc.ReviewAccess(ctx, want[2:3])
	if err != nil || len(again) != 1 || again[0].Resource != "deployments" {
		t.Errorf("asking again: %v, %v", again, err)
	}
}
