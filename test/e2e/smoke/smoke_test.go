//go:build e2e

// Package smoke checks that the end-to-end control plane behaves like a real
// cluster for what kubectl-chart does: server-side apply of built-in and
// custom resources, rollouts that finish, Jobs that complete, deletion.
package smoke

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

// env is set once by TestMain and only read by tests.
var env *cluster.Env

func TestMain(m *testing.M) {
	os.Exit(cluster.Main(m, func(e *cluster.Env) { env = e }))
}

const fieldManager = "kubectl-chart"

func TestApplyRolloutDelete(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	begin := time.Now()
	step := func(what string) { t.Logf("%s after %s", what, time.Since(begin).Round(10*time.Millisecond)) }
	ns := env.Namespace(t)
	step("namespace ready")
	group := ns + ".e2e.kubectl-chart.dev"
	a := newApplier(t, env)

	crd := a.apply(ctx, ns, load(t, "crd.yaml", group)[0])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a.deleteAndWait(ctx, ns, crd)
	})
	if _, err := cluster.WaitFor(ctx, env.Dynamic(), crdResource(), "", crd.GetName(), established); err != nil {
		t.Fatal(err)
	}
	a.refresh(ctx, schema.GroupKind{Group: group, Kind: "Widget"})
	step("custom resource definition established and discovered")

	var applied []*unstructured.Unstructured
	for _, obj := range load(t, "resources.yaml", group) {
		applied = append(applied, a.apply(ctx, ns, obj))
	}
	for _, obj := range applied {
		if !managedBy(obj, fieldManager) {
			t.Errorf("%s %s: no managed fields for %q: %v", obj.GetKind(), obj.GetName(), fieldManager, obj.GetManagedFields())
		}
	}

	deploy := a.resource(t, byKind(t, applied, "Deployment"))
	if _, err := cluster.WaitFor(ctx, env.Dynamic(), deploy, ns, "smoke", rolledOut); err != nil {
		t.Fatal(err)
	}
	step("deployment rolled out")
	job := a.resource(t, byKind(t, applied, "Job"))
	if _, err := cluster.WaitFor(ctx, env.Dynamic(), job, ns, "smoke-migrate", func(u *unstructured.Unstructured) bool {
		return cluster.ConditionTrue(u, "Complete")
	}); err != nil {
		t.Fatal(err)
	}
	step("job complete")
	svc, err := env.Dynamic().Resource(a.resource(t, byKind(t, applied, "Service"))).Namespace(ns).Get(ctx, "smoke", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get service: %v", err)
	}
	if ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP"); !strings.HasPrefix(ip, "10.96.") {
		t.Errorf("service cluster IP = %q, want one from 10.96.0.0/16", ip)
	}
	widget, err := env.Dynamic().Resource(a.resource(t, byKind(t, applied, "Widget"))).Namespace(ns).Get(ctx, "smoke", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get widget: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(widget.Object, "spec", "size"); size != 3 {
		t.Errorf("widget size = %d, want 3", size)
	}

	// Delete in reverse, as an uninstall would, and see each one go.
	for i := len(applied) - 1; i >= 0; i-- {
		a.deleteAndWait(ctx, ns, applied[i])
		step(applied[i].GetKind() + " deleted")
	}
	a.deleteAndWait(ctx, ns, crd)
	step("custom resource definition deleted")
	if err := env.DeleteNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	step("namespace deleted")
}

// applier server-side applies objects the way kubectl-chart does, mapping
// kinds to resources through discovery.
type applier struct {
	t      *testing.T
	env    *cluster.Env
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(t *testing.T, env *cluster.Env) *applier {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config())
	if err != nil {
		t.Fatalf("discovery client: %v", err)
	}
	return &applier{t: t, env: env, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (a *applier) mapping(obj *unstructured.Unstructured) (*meta.RESTMapping, error) {
	gvk := obj.GroupVersionKind()
	return a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
}

func (a *applier) resource(t *testing.T, obj *unstructured.Unstructured) schema.GroupVersionResource {
	t.Helper()
	m, err := a.mapping(obj)
	if err != nil {
		t.Fatalf("map %s: %v", obj.GroupVersionKind(), err)
	}
	return m.Resource
}

func (a *applier) apply(ctx context.Context, ns string, obj *unstructured.Unstructured) *unstructured.Unstructured {
	a.t.Helper()
	m, err := a.mapping(obj)
	if err != nil {
		a.t.Fatalf("map %s: %v", obj.GroupVersionKind(), err)
	}
	res := a.env.Dynamic().Resource(m.Resource)
	var out *unstructured.Unstructured
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		obj.SetNamespace(ns)
		out, err = res.Namespace(ns).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	} else {
		out, err = res.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	}
	if err != nil {
		a.t.Fatalf("apply %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return out
}

// refresh forgets cached discovery until the new kind is served: Established
// means the API server serves it, discovery may follow a moment later.
func (a *applier) refresh(ctx context.Context, gk schema.GroupKind) {
	a.t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		a.mapper.Reset()
		_, err := a.mapper.RESTMapping(gk)
		return err == nil, nil
	})
	if err != nil {
		a.t.Fatalf("discover %s: %v", gk, err)
	}
}

// deleteAndWait deletes obj and waits until it is gone. Workloads go in the
// foreground, so their pods are gone too; other objects in the background,
// since the garbage collector only honours foreground deletion of a custom
// resource once it has rediscovered the API (every 30 s).
func (a *applier) deleteAndWait(ctx context.Context, ns string, obj *unstructured.Unstructured) {
	a.t.Helper()
	m, err := a.mapping(obj)
	if err != nil {
		a.t.Errorf("map %s: %v", obj.GroupVersionKind(), err)
		return
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		ns = ""
	}
	policy := metav1.DeletePropagationBackground
	if kind := obj.GetKind(); kind == "Deployment" || kind == "Job" {
		policy = metav1.DeletePropagationForeground
	}
	err = a.env.Dynamic().Resource(m.Resource).Namespace(ns).Delete(ctx, obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &policy})
	if err != nil && !apierrors.IsNotFound(err) {
		a.t.Errorf("delete %s %s: %v", obj.GetKind(), obj.GetName(), err)
		return
	}
	if err := cluster.WaitGone(ctx, a.env.Dynamic(), m.Resource, ns, obj.GetName()); err != nil {
		a.t.Error(err)
	}
}

// load reads a multi-document YAML file from testdata with GROUP replaced.
func load(t *testing.T, name, group string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("GROUP"), []byte(group))
	var objs []*unstructured.Unstructured
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
	return objs
}

func byKind(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	for _, obj := range objs {
		if obj.GetKind() == kind {
			return obj
		}
	}
	t.Fatalf("no %s among the applied objects", kind)
	return nil
}

func crdResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
}

func established(crd *unstructured.Unstructured) bool {
	return cluster.ConditionTrue(crd, "Established")
}

// rolledOut is kubectl rollout status's test: the controller saw the latest
// spec, every replica is updated and ready, and the Deployment is Available.
func rolledOut(d *unstructured.Unstructured) bool {
	want, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	observed, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration")
	updated, _, _ := unstructured.NestedInt64(d.Object, "status", "updatedReplicas")
	ready, _, _ := unstructured.NestedInt64(d.Object, "status", "readyReplicas")
	return observed >= d.GetGeneration() && updated == want && ready == want && cluster.ConditionTrue(d, "Available")
}

func managedBy(obj *unstructured.Unstructured, manager string) bool {
	for _, f := range obj.GetManagedFields() {
		if f.Manager == manager && f.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}
