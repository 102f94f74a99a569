//go:build e2e

// Package lifecycle tests install, upgrade, rollback, uninstall and test on a
// real control plane, through the kube adapter and the command.
package lifecycle

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/kube"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
)

// env is set once by TestMain and only read by tests.
var env *cluster.Env

func TestMain(m *testing.M) {
	os.Exit(cluster.Main(m, func(e *cluster.Env) { env = e }))
}

func obj(t *testing.T, ns, text string) ports.Object {
	t.Helper()
	var u ports.Object
	if err := yaml.Unmarshal([]byte(text), &u); err != nil {
		t.Fatal(err)
	}
	if ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`

const failingJob = `
apiVersion: batch/v1
kind: Job
metadata: {name: fails}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 2
  template:
    spec:
      nodeSelector: {no-such-node: "true"}
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`

func TestKubeAdapter(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	c, err := kube.New(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if caps.KubeVersion.Major != "1" || !caps.APIVersions.Has("apps/v1") || !caps.APIVersions.Has("apps/v1/Deployment") {
		t.Errorf("capabilities = %+v %v", caps.KubeVersion, caps.APIVersions[:5])
	}
	if nsd, err := c.Namespaced(ctx, "apps/v1", "Deployment"); err != nil || !nsd {
		t.Errorf("Namespaced(Deployment) = %v, %v", nsd, err)
	}
	if _, err := c.Namespaced(ctx, "example.com/v1", "Nope"); !errors.Is(err, ports.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}

	d := obj(t, ns, deployment)
	live, err := c.Apply(ctx, d, ports.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mf := (&unstructured.Unstructured{Object: live}).GetManagedFields(); len(mf) == 0 || mf[0].Manager != ports.DefaultFieldManager {
		t.Errorf("managed fields = %v", mf)
	}
	var seen []ports.ObjectStatus
	if err := c.WaitReady(ctx, []ports.ObjectRef{ports.RefOf(d)}, ports.WaitOptions{Progress: func(s ports.ObjectStatus) { seen = append(seen, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || !seen[len(seen)-1].Ready {
		t.Errorf("progress = %+v", seen)
	}
	got, err := c.Get(ctx, ports.RefOf(d))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got, "status", "readyReplicas"); r != 2 {
		t.Errorf("ready replicas = %d", r)
	}

	// Another manager's field: a conflict unless forced or taken over.
	other := obj(t, ns, deployment)
	if err := unstructured.SetNestedField(other, int64(3), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(ctx, other, ports.ApplyOptions{}); err != nil {
		t.Fatalf("same manager re-apply: %v", err)
	}

	job := obj(t, ns, failingJob)
	if _, err := c.Apply(ctx, job, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	// kwok never fails a pod; an unschedulable one exceeds the Job's deadline.
	err = c.WaitReady(ctx, []ports.ObjectRef{ports.RefOf(job)}, ports.WaitOptions{Completion: true})
	if err == nil {
		t.Error("a failed Job was reported complete")
	}
	t.Logf("failing job: %v", err)

	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	lb := obj(t, ns, `{apiVersion: v1, kind: Service, metadata: {name: lb}, spec: {type: LoadBalancer, ports: [{port: 80}]}}`)
	if _, err := c.Apply(ctx, lb, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	var nre *ports.NotReadyError
	if err := c.WaitReady(short, []ports.ObjectRef{ports.RefOf(lb)}, ports.WaitOptions{}); !errors.As(err, &nre) || len(nre.Pending) != 1 {
		t.Errorf("load balancer wait = %v, want NotReadyError", err)
	} else {
		t.Logf("load balancer: %v", err)
	}

	if err := c.Delete(ctx, ports.RefOf(d), ports.PropagationForeground); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitDeleted(ctx, []ports.ObjectRef{ports.RefOf(d)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, ports.RefOf(d)); !errors.Is(err, ports.ErrObjectNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	if err := c.Delete(ctx, ports.RefOf(d), ""); !errors.Is(err, ports.ErrObjectNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

// racingTransport writes the object once, through another client, just
// before the first JSON patch reaches the server, as a controller writing
// status between our read and our patch would.
type racingTransport struct {
	next  http.RoundTripper
	race  func() error
	raced bool
	err   error
}

func (r *racingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !r.raced && req.Method == http.MethodPatch && req.Header.Get("Content-Type") == string(types.JSONPatchType) {
		r.raced = true
		r.err = r.race()
	}
	return r.next.RoundTrip(req)
}

// Taking over fields another tool wrote with client-side updates survives a
// concurrent write to the object: the migration patch is recomputed.
func TestApplyTakeOverRetriesOnConflict(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	cms := env.Dynamic().Resource(configMaps).Namespace(ns)
	helmWritten := obj(t, ns, `{apiVersion: v1, kind: ConfigMap, metadata: {name: taken}, data: {kept: a, dropped: b}}`)
	if _, err := cms.Create(ctx, &unstructured.Unstructured{Object: helmWritten}, metav1.CreateOptions{FieldManager: "helm"}); err != nil {
		t.Fatal(err)
	}
	race := &racingTransport{race: func() error {
		live, err := cms.Get(ctx, "taken", metav1.GetOptions{})
		if err != nil {
			return err
		}
		live.SetAnnotations(map[string]string{"touched": "concurrently"})
		_, err = cms.Update(ctx, live, metav1.UpdateOptions{FieldManager: "controller"})
		return err
	}}
	cfg := env.Config()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { race.next = rt; return race })
	c, err := kube.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ours := obj(t, ns, `{apiVersion: v1, kind: ConfigMap, metadata: {name: taken}, data: {kept: c}}`)
	if _, err := c.Apply(ctx, ours, ports.ApplyOptions{TakeOverFrom: []string{"helm"}}); err != nil {
		t.Fatalf("apply with a concurrent write: %v", err)
	}
	if !race.raced || race.err != nil {
		t.Fatalf("the concurrent write did not happen: raced=%v err=%v", race.raced, race.err)
	}
	got, err := cms.Get(ctx, "taken", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(got.Object, "data")
	if data["kept"] != "c" || data["dropped"] != "" {
		t.Errorf("data after take-over = %v, want only kept=c", data)
	}
}
