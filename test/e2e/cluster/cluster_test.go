//go:build e2e

// Package cluster runs the ports.Cluster contract suite against the kube
// adapter on a real control plane, which decides what the in-memory cluster
// (adapters/memcluster) must do.
package cluster

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kubectl-chart/kubectl-chart/adapters/kube"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
	harness "github.com/kubectl-chart/kubectl-chart/test/cluster"
)

// env is set once by TestMain and only read by tests.
var env *harness.Env

func TestMain(m *testing.M) {
	os.Exit(harness.Main(m, func(e *harness.Env) { env = e }))
}

func TestContract(t *testing.T) {
	porttest.Cluster(t, func(t *testing.T) porttest.ClusterFixture {
		c, err := kube.New(env.Config())
		if err != nil {
			t.Fatal(err)
		}
		ns := env.Namespace(t)
		return porttest.ClusterFixture{Cluster: c, Namespace: ns, Others: newOthers(t),
			Restricted: func(t *testing.T, allow []ports.Access) ports.Cluster { return restricted(t, ns, allow) }}
	})
}

// restricted is the cluster as a ServiceAccount of ns bound to a Role that
// grants allow, reached by impersonating it.
func restricted(t *testing.T, ns string, allow []ports.Access) ports.Cluster {
	t.Helper()
	ctx := t.Context()
	admin, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	const name = "porttest-restricted"
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, a := range allow {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{Verbs: []string{a.Verb}, APIGroups: []string{a.Group}, Resources: []string{a.Resource}})
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := env.Config()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name}
	// The authorizer sees new bindings a moment later.
	as, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := allow[0]
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := as.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authv1.ResourceAttributes{Namespace: ns, Verb: first.Verb, Group: first.Group, Resource: first.Resource},
		}}, metav1.CreateOptions{})
		if err == nil && r.Status.Allowed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the role of %s is not in force: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c, err := kube.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// others writes through a dynamic client as other field managers.
type others struct {
	dynamic dynamic.Interface
	mapper  meta.RESTMapper
}

func newOthers(t *testing.T) *others {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	return &others{dynamic: env.Dynamic(), mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (o *others) resource(obj ports.Object) (dynamic.ResourceInterface, error) {
	gv, err := schema.ParseGroupVersion(obj.GetAPIVersion())
	if err != nil {
		return nil, err
	}
	m, err := o.mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: obj.GetKind()}, gv.Version)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", ports.RefOf(obj), err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return o.dynamic.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
	}
	return o.dynamic.Resource(m.Resource), nil
}

func (o *others) ApplyAs(ctx context.Context, manager string, obj ports.Object, opts ports.ApplyOptions) (ports.Object, error) {
	ri, err := o.resource(obj)
	if err != nil {
		return nil, err
	}
	ao := metav1.ApplyOptions{FieldManager: manager, Force: opts.ForceConflicts}
	if opts.DryRun {
		ao.DryRun = []string{metav1.DryRunAll}
	}
	out, err := ri.Apply(ctx, obj.GetName(), &unstructured.Unstructured{Object: obj}, ao)
	if err != nil {
		return nil, fmt.Errorf("apply %s as %s: %w", ports.RefOf(obj), manager, err)
	}
	return ports.Object(out.Object), nil
}

func (o *others) UpdateAs(ctx context.Context, manager string, obj ports.Object) (ports.Object, error) {
	ri, err := o.resource(obj)
	if err != nil {
		return nil, err
	}
	u := (&unstructured.Unstructured{Object: obj}).DeepCopy()
	live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	var out *unstructured.Unstructured
	switch {
	case apierrors.IsNotFound(err):
		out, err = ri.Create(ctx, u, metav1.CreateOptions{FieldManager: manager})
	case err != nil:
	default:
		if u.GetResourceVersion() == "" {
			u.SetResourceVersion(live.GetResourceVersion())
		}
		out, err = ri.Update(ctx, u, metav1.UpdateOptions{FieldManager: manager})
	}
	if err != nil {
		return nil, fmt.Errorf("update %s as %s: %w", ports.RefOf(obj), manager, err)
	}
	return ports.Object(out.Object), nil
}
