// Package cluster runs the ports.Cluster contract suite against the kube
// adapter on a real control plane, which decides what the in-memory cluster
// (adapters/memcluster) must do.
package cluster

import (
	"context"
	"fmt"
	"os"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
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
		return porttest.ClusterFixture{Cluster: c, Namespace: env.Namespace(t), Others: newOthers(t)}
	})
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
