package memcluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

const ns = "apps"

func obj(t *testing.T, format string, args ...any) ports.Object {
	t.Helper()
	var o ports.Object
	if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &o); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return o
}

func cm(t *testing.T, name, data string) ports.Object {
	t.Helper()
	return obj(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q},"data":%s}`, name, ns, data)
}

func deployment(t *testing.T, name string) ports.Object {
	t.Helper()
	return obj(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":%q},
		"spec":{"replicas":1,"selector":{"matchLabels":{"app":%q}},
		"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`, name, ns, name, name)
}

func job(t *testing.T, name string) ports.Object {
	t.Helper()
	return obj(t, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":%q,"namespace":%q},
		"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`, name, ns)
}

func apply(t *testing.T, c *memcluster.Cluster, objs ...ports.Object) {
	t.Helper()
	for _, o := range objs {
		if _, err := c.Apply(context.Background(), o, ports.ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSetState(t *testing.T) {
	tests := map[string]struct {
		objects []string // "Deployment web", "Job migrate"
		sel     memcluster.Selector
		state   memcluster.State
		opts    ports.WaitOptions
		// want: "" ready, "pending" a NotReadyError, "failed" another error
		want string
	}{
		"ready by default":              {objects: []string{"Deployment web", "Job migrate"}, opts: ports.WaitOptions{WaitForJobs: true}},
		"pending deployment":            {objects: []string{"Deployment web"}, sel: memcluster.Selector{Name: "web"}, state: memcluster.Pending, want: "pending"},
		"failed deployment":             {objects: []string{"Deployment web"}, sel: memcluster.Selector{Kind: "Deployment"}, state: memcluster.Failed, want: "failed"},
		"pending job without job waits": {objects: []string{"Job migrate"}, sel: memcluster.Selector{Kind: "Job"}, state: memcluster.Pending},
		"pending job with job waits":    {objects: []string{"Job migrate"}, sel: memcluster.Selector{Kind: "Job"}, state: memcluster.Pending, opts: ports.WaitOptions{WaitForJobs: true}, want: "pending"},
		"pending job to completion":     {objects: []string{"Job migrate"}, sel: memcluster.Selector{Kind: "Job"}, state: memcluster.Pending, opts: ports.WaitOptions{Completion: true}, want: "pending"},
		"failed job":                    {objects: []string{"Job migrate"}, sel: memcluster.Selector{Name: "migrate"}, state: memcluster.Failed, opts: ports.WaitOptions{Completion: true}, want: "failed"},
		"rule of another namespace":     {objects: []string{"Deployment web"}, sel: memcluster.Selector{Namespace: "other"}, state: memcluster.Pending},
		"config maps are not waited on": {objects: []string{"ConfigMap c"}, sel: memcluster.Selector{}, state: memcluster.Pending},
		"config maps to completion":     {objects: []string{"ConfigMap c"}, sel: memcluster.Selector{}, state: memcluster.Pending, opts: ports.WaitOptions{Completion: true}, want: "pending"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := memcluster.New(memcluster.WithNamespaces(ns))
			var refs []ports.ObjectRef
			for _, o := range tc.objects {
				kind, name, _ := strings.Cut(o, " ")
				var x ports.Object
				switch kind {
				case "Deployment":
					x = deployment(t, name)
				case "Job":
					x = job(t, name)
				default:
					x = cm(t, name, `{}`)
				}
				apply(t, c, x)
				refs = append(refs, ports.RefOf(x))
			}
			if tc.sel != (memcluster.Selector{}) || tc.state != memcluster.Ready {
				c.SetState(tc.sel, tc.state, "")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			err := c.WaitReady(ctx, refs, tc.opts)
			var nre *ports.NotReadyError
			switch tc.want {
			case "":
				if err != nil {
					t.Errorf("WaitReady = %v, want ready", err)
				}
			case "pending":
				if !errors.As(err, &nre) || len(nre.Pending) != 1 {
					t.Errorf("WaitReady = %v, want one pending", err)
				}
			case "failed":
				if err == nil || errors.As(err, &nre) {
					t.Errorf("WaitReady = %v, want a failure", err)
				}
			}
		})
	}
}

func TestSetStateWakesWaits(t *testing.T) {
	c := memcluster.New(memcluster.WithNamespaces(ns))
	d := deployment(t, "web")
	apply(t, c, d)
	c.SetState(memcluster.Selector{Name: "web"}, memcluster.Pending, "0 of 1 replicas available")
	var mu sync.Mutex
	var seen []string
	// pending is closed once the wait has seen the object pending: the
	// change below must then wake it.
	pending := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- c.WaitReady(context.Background(), []ports.ObjectRef{ports.RefOf(d)}, ports.WaitOptions{Progress: func(s ports.ObjectStatus) {
			mu.Lock()
			if len(seen) == 0 {
				close(pending)
			}
			seen = append(seen, s.Message)
			mu.Unlock()
		}})
	}()
	<-pending
	c.SetState(memcluster.Selector{Name: "web"}, memcluster.Ready, "")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not see the object become ready")
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(seen) != "[0 of 1 replicas available ready]" {
		t.Errorf("progress = %q", seen)
	}
}

func TestWaitReadySeesCreates(t *testing.T) {
	c := memcluster.New(memcluster.WithNamespaces(ns))
	d := deployment(t, "late")
	// unseen is closed once the wait has found the object missing.
	unseen := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		done <- c.WaitReady(context.Background(), []ports.ObjectRef{ports.RefOf(d)}, ports.WaitOptions{Progress: func(ports.ObjectStatus) {
			once.Do(func() { close(unseen) })
		}})
	}()
	<-unseen
	apply(t, c, d)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not see the object created")
	}
}

func TestCalls(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	a, b := cm(t, "a", `{}`), cm(t, "b", `{}`)
	if _, err := c.Apply(ctx, a, ports.ApplyOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	apply(t, c, a, b)
	if _, err := c.ApplyAs(ctx, "kubectl-edit", cm(t, "c", `{}`), ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ports.RefOf(a), ports.PropagationForeground); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Get(ctx, ports.RefOf(a))
	want := "[apply ConfigMap apps/a (dry run) apply ConfigMap apps/a apply ConfigMap apps/b delete ConfigMap apps/a get ConfigMap apps/a]"
	if got := fmt.Sprint(c.Calls()); got != want {
		t.Errorf("calls = %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(c.Calls(memcluster.VerbDelete)); got != "[delete ConfigMap apps/a]" {
		t.Errorf("deletes = %s", got)
	}
	if got := c.Calls(memcluster.VerbDelete)[0].Propagation; got != ports.PropagationForeground {
		t.Errorf("propagation = %q", got)
	}
	c.ResetCalls()
	if got := c.Calls(); len(got) != 0 {
		t.Errorf("calls after reset = %v", got)
	}
	if got := c.Names(memcluster.Selector{Kind: "ConfigMap"}); fmt.Sprint(got) != "[b c]" {
		t.Errorf("names = %v", got)
	}
}

func TestPodLogs(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns), memcluster.WithPodLog("default log\n"))
	for _, name := range []string{"a", "b"} {
		if _, err := c.UpdateAs(ctx, "kube-controller-manager", obj(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":%q},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`, name, ns)); err != nil {
			t.Fatal(err)
		}
	}
	c.SetPodLog(ns, "b", "b's log\n")
	tests := map[string]struct {
		pod, want string
		err       error
	}{
		"default":  {pod: "a", want: "default log\n"},
		"own":      {pod: "b", want: "b's log\n"},
		"no a pod": {pod: "missing", err: ports.ErrObjectNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := c.PodLogs(ctx, ns, tc.pod, "", &buf)
			if !errors.Is(err, tc.err) || buf.String() != tc.want {
				t.Errorf("PodLogs = %q, %v; want %q, %v", buf.String(), err, tc.want, tc.err)
			}
		})
	}
}

func TestListedItemsMergeByName(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	d := deployment(t, "web")
	apply(t, c, d)
	// kubectl set image: another manager updates one container's image.
	live, err := c.Get(ctx, ports.RefOf(d))
	if err != nil {
		t.Fatal(err)
	}
	containers := live["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	containers[0].(map[string]any)["image"] = "nginx:2"
	delete(live["metadata"].(map[string]any), "managedFields")
	if _, err := c.UpdateAs(ctx, "kubectl-set", live); err != nil {
		t.Fatal(err)
	}
	_, err = c.Apply(ctx, d, ports.ApplyOptions{})
	var ce *ports.ConflictError
	if !errors.As(err, &ce) || fmt.Sprint(ce.Conflicts) != `[{kubectl-set .spec.template.spec.containers[name="web"].image}]` {
		t.Fatalf("err = %v, want a conflict on the container's image", err)
	}
	// Another manager adds a sidecar: our apply keeps it.
	side := obj(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":%q},
		"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy"}]}}}}`, ns)
	if _, err := c.ApplyAs(ctx, "injector", side, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Apply(ctx, d, ports.ApplyOptions{ForceConflicts: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"])
	if string(got) != `[{"image":"nginx:1","name":"web"},{"image":"envoy","name":"sidecar"}]` {
		t.Errorf("containers = %s", got)
	}
	mf, _ := json.Marshal(out["metadata"].(map[string]any)["managedFields"])
	if !strings.Contains(string(mf), `"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}`) {
		t.Errorf("managedFields = %s", mf)
	}
}

func TestGenerationAndStatus(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	d := deployment(t, "web")
	d["status"] = map[string]any{"readyReplicas": 5}
	live, err := c.Apply(ctx, d, ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if live["status"] != nil {
		t.Errorf("applied status was kept: %v", live["status"])
	}
	gen := func(o ports.Object) any { return o["metadata"].(map[string]any)["generation"] }
	if gen(live) != int64(1) {
		t.Errorf("generation = %v", gen(live))
	}
	d.SetLabels(map[string]string{"a": "b"})
	if live, err = c.Apply(ctx, d, ports.ApplyOptions{}); err != nil || gen(live) != int64(1) {
		t.Errorf("after a label change: generation %v, %v", gen(live), err)
	}
	d["spec"].(map[string]any)["replicas"] = 3
	if live, err = c.Apply(ctx, d, ports.ApplyOptions{}); err != nil || gen(live) != int64(2) {
		t.Errorf("after a spec change: generation %v, %v", gen(live), err)
	}
	if got := live["spec"].(map[string]any)["replicas"]; got != int64(3) {
		t.Errorf("replicas = %v (%T), want int64 3", got, got)
	}
	cmLive, err := c.Apply(ctx, cm(t, "a", `{}`), ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := cmLive["metadata"].(map[string]any)["generation"]; ok {
		t.Errorf("a ConfigMap has generation %v", g)
	}
}

func TestServiceClusterIP(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	svc := obj(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":%q},"spec":{"ports":[{"port":80}]}}`, ns)
	first, err := c.Apply(ctx, svc, ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ip, _ := first["spec"].(map[string]any)["clusterIP"].(string)
	if ip == "" {
		t.Fatalf("no cluster IP allocated: %v", first["spec"])
	}
	again, err := c.Apply(ctx, svc, ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again["spec"].(map[string]any)["clusterIP"] != ip || again["metadata"].(map[string]any)["resourceVersion"] != first["metadata"].(map[string]any)["resourceVersion"] {
		t.Errorf("a re-apply changed the service: %v", again["spec"])
	}
}

func TestCRDLifecycle(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	crd := obj(t, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"kind":"Widget","plural":"widgets"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)
	if err := c.InstallCRDs(ctx, []ports.Object{crd}, ""); err != nil {
		t.Fatal(err)
	}
	w := obj(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":%q,"finalizers":["example.com/hold"]}}`, ns)
	apply(t, c, w)
	if err := c.Delete(ctx, ports.RefOf(crd), ""); err != nil {
		t.Fatal(err)
	}
	// A custom resource's finalizer holds its definition.
	if _, err := c.Namespaced(ctx, "example.com/v1", "Widget"); err != nil {
		t.Errorf("kind while its CRD terminates: %v", err)
	}
	if _, err := c.Apply(ctx, obj(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"new","namespace":%q}}`, ns), ports.ApplyOptions{}); err == nil {
		t.Error("a custom resource was created while its CRD terminates")
	}
	if err := c.RemoveFinalizers(ctx, ports.RefOf(w)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaced(ctx, "example.com/v1", "Widget"); !errors.Is(err, ports.ErrUnknownKind) {
		t.Errorf("kind after its CRD is gone: %v", err)
	}
	bad := obj(t, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"wrong"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"kind":"Gadget","plural":"gadgets"},"versions":[{"name":"v1","served":true,"storage":true}]}}`)
	if err := c.InstallCRDs(ctx, []ports.Object{bad}, ""); !errors.Is(err, ports.ErrInvalid) {
		t.Errorf("invalid CRD: %v", err)
	}
}

func TestNamespaceDeletion(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	held := cm(t, "held", `{}`)
	held["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
	apply(t, c, cm(t, "a", `{}`), held)
	nsRef := ports.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: ns}
	if err := c.Delete(ctx, nsRef, ""); err != nil {
		t.Fatal(err)
	}
	if got := c.Names(memcluster.Selector{Namespace: ns}); fmt.Sprint(got) != "[held]" {
		t.Errorf("left in the namespace: %v", got)
	}
	if _, err := c.Apply(ctx, cm(t, "b", `{}`), ports.ApplyOptions{}); err == nil || !strings.Contains(err.Error(), "being terminated") {
		t.Errorf("create in a terminating namespace: %v", err)
	}
	if err := c.RemoveFinalizers(ctx, ports.RefOf(held)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitDeleted(ctx, []ports.ObjectRef{nsRef}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(ctx, cm(t, "b", `{}`), ports.ApplyOptions{}); err == nil || !strings.Contains(err.Error(), `namespaces "apps" not found`) {
		t.Errorf("create in a deleted namespace: %v", err)
	}
}

func TestForegroundWaitsForDependents(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	owner, err := c.Apply(ctx, cm(t, "owner", `{}`), ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dep := obj(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dep","namespace":%q,"finalizers":["example.com/hold"],
		"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q}]}}`, ns, owner["metadata"].(map[string]any)["uid"])
	apply(t, c, dep)
	if err := c.Delete(ctx, ports.RefOf(owner), ports.PropagationForeground); err != nil {
		t.Fatal(err)
	}
	live, err := c.Get(ctx, ports.RefOf(owner))
	if err != nil {
		t.Fatalf("the owner went before its dependent: %v", err)
	}
	if f := live["metadata"].(map[string]any)["finalizers"]; fmt.Sprint(f) != "[foregroundDeletion]" {
		t.Errorf("owner finalizers = %v", f)
	}
	if err := c.RemoveFinalizers(ctx, ports.RefOf(dep)); err != nil {
		t.Fatal(err)
	}
	if got := c.Names(memcluster.Selector{Namespace: ns}); len(got) != 0 {
		t.Errorf("left: %v", got)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	clock := fixedClock{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	c := memcluster.New(memcluster.WithNamespaces(ns), memcluster.WithClock(clock), memcluster.WithKubeVersion("v1.31.2"),
		memcluster.WithKind("cert-manager.io/v1", "Certificate", true), memcluster.WithImmutable("Certificate", "spec.secretName"))
	caps, err := c.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if caps.KubeVersion.Version != "v1.31.2" || !caps.APIVersions.Has("cert-manager.io/v1/Certificate") {
		t.Errorf("capabilities = %v %v", caps.KubeVersion, caps.APIVersions)
	}
	cert := func(secret string) ports.Object {
		return obj(t, `{"apiVersion":"cert-manager.io/v1","kind":"Certificate","metadata":{"name":"tls","namespace":%q},"spec":{"secretName":%q}}`, ns, secret)
	}
	live, err := c.Apply(ctx, cert("a"), ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ts := live["metadata"].(map[string]any)["creationTimestamp"]; ts != "2026-01-02T03:04:05Z" {
		t.Errorf("creationTimestamp = %v", ts)
	}
	if _, err := c.Apply(ctx, cert("b"), ports.ApplyOptions{}); !errors.Is(err, ports.ErrInvalid) {
		t.Errorf("immutable field change: %v", err)
	}
}

type fixedClock struct{ t time.Time }

func (f fixedClock) Now() time.Time { return f.t }

func TestReadsAreCopies(t *testing.T) {
	ctx := context.Background()
	c := memcluster.New(memcluster.WithNamespaces(ns))
	o := cm(t, "a", `{"x":"1"}`)
	live, err := c.Apply(ctx, o, ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o["data"].(map[string]any)["x"] = "changed"
	live["data"].(map[string]any)["x"] = "changed"
	got, err := c.Get(ctx, ports.RefOf(o))
	if err != nil {
		t.Fatal(err)
	}
	if got["data"].(map[string]any)["x"] != "1" {
		t.Errorf("the stored object changed through a caller's copy: %v", got["data"])
	}
}
