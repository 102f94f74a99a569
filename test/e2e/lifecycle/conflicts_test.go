//go:build e2e

package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// conflictChart writes a chart whose ConfigMap and Deployment each have
// several fields set from values.
func conflictChart(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: fields\nversion: 0.1.0\n",
		"values.yaml": "tier: one\na: \"1\"\nb: \"2\"\nreplicas: 1\ngreeting: hello\n",
		"templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels:
    tier: {{ .Values.tier | quote }}
data:
  a: {{ .Values.a | quote }}
  b: {{ .Values.b | quote }}
`,
		"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    tier: {{ .Values.tier | quote }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
        - name: web
          image: nginx
          env:
            - name: GREETING
              value: {{ .Values.greeting | quote }}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// changedFields are values that change, from the chart's defaults, two
// fields of the ConfigMap and three of the Deployment (and a label of each).
var changedFields = []string{"--set", "tier=two,a=x,b=y,replicas=2,greeting=hi"}

// checkChanged fails t unless the live objects of release carry changedFields.
func checkChanged(t *testing.T, ns, release string) {
	t.Helper()
	cm := get(t, configMaps, ns, release+"-config")
	if data, _, _ := unstructured.NestedStringMap(cm.Object, "data"); data["a"] != "x" || data["b"] != "y" || cm.GetLabels()["tier"] != "two" {
		t.Errorf("config map after the upgrade: data %v, labels %v", data, cm.GetLabels())
	}
	d := get(t, deployments, ns, release)
	replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var greeting any
	if len(containers) == 1 {
		if env, _, _ := unstructured.NestedSlice(containers[0].(map[string]any), "env"); len(env) == 1 {
			greeting = env[0].(map[string]any)["value"]
		}
	}
	if replicas != 2 || greeting != "hi" || d.GetLabels()["tier"] != "two" {
		t.Errorf("deployment after the upgrade: replicas %d, GREETING %v, labels %v", replicas, greeting, d.GetLabels())
	}
}

// A release that Helm 3 installed (its client-side writes leave the fields to
// the "helm" field manager) is upgraded without --force-conflicts when an
// object has several changed fields: the server then reports several
// conflicts at once, all with Helm, and they are taken over.
func TestFieldConflictsHelmInstalledSeveralFields(t *testing.T) {
	t.Parallel()
	helm := helmPeer(t)
	ns := env.Namespace(t)
	chart := conflictChart(t)
	runHelm(t, helm, "install", "r", chart, "-n", ns, "--wait", "--timeout", "60s")

	mustRun(t, append([]string{"upgrade", "r", chart, "-n", ns, "--wait", "--timeout", "60s"}, changedFields...)...)
	checkChanged(t, ns, "r")
	if got := statuses(t, ns, "r"); got != "1:superseded 2:deployed" {
		t.Errorf("history = %s", got)
	}
	// The fields are our apply's now (its manager is Helm's name, "helm"):
	// Helm's client-side update owns none of them.
	for _, o := range []*unstructured.Unstructured{get(t, configMaps, ns, "r-config"), get(t, deployments, ns, "r")} {
		for _, f := range o.GetManagedFields() {
			if f.Manager == "helm" && f.Operation != metav1.ManagedFieldsOperationApply {
				t.Errorf("%s %s: Helm's update still manages fields %s", o.GetKind(), o.GetName(), f.FieldsV1.GetRawString())
			}
		}
	}
	// And Helm still upgrades it back (to the chart's defaults: without
	// --reset-values Helm 3 would reuse our revision's values).
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--reset-values")
	if a, _, _ := unstructured.NestedString(get(t, configMaps, ns, "r-config").Object, "data", "a"); a != "1" {
		t.Errorf("data.a after Helm's upgrade = %q", a)
	}
}

// Fields another tool wrote (here "kubectl-edit", with an update as kubectl
// edit does and with a server-side apply) are not taken over without
// --force-conflicts, however many conflict; with it they are.
func TestFieldConflictsOtherManager(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t)
	chart := conflictChart(t)
	mustRun(t, "install", "r", chart, "-n", ns, "--wait", "--timeout", "60s")

	// Two fields of the ConfigMap, by update.
	cms := env.Dynamic().Resource(configMaps).Namespace(ns)
	cm := get(t, configMaps, ns, "r-config")
	if err := unstructured.SetNestedStringMap(cm.Object, map[string]string{"a": "edited", "b": "edited"}, "data"); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	// The replicas of the Deployment, by server-side apply.
	scale := obj(t, "", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: r}, spec: {replicas: 3}}`)
	if _, err := env.Dynamic().Resource(deployments).Namespace(ns).Apply(ctx, "r", &unstructured.Unstructured{Object: scale},
		metav1.ApplyOptions{FieldManager: "kubectl-edit", Force: true}); err != nil {
		t.Fatal(err)
	}

	r := run(t, nil, append([]string{"upgrade", "r", chart, "-n", ns}, changedFields...)...)
	if r.code == 0 || !strings.Contains(r.err, "(use --force-conflicts to take these fields over)") || !strings.Contains(r.err, `with "kubectl-edit"`) {
		t.Fatalf("upgrade over kubectl-edit's fields: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	if !strings.Contains(r.err, "apply ConfigMap "+ns+"/r-config: ") && !strings.Contains(r.err, "apply Deployment "+ns+"/r: ") {
		t.Errorf("the refusal names no object:\n%s", r.err)
	}
	t.Logf("refusal: %s", strings.TrimSpace(r.err))
	if data, _, _ := unstructured.NestedStringMap(get(t, configMaps, ns, "r-config").Object, "data"); data["a"] != "edited" || data["b"] != "edited" {
		t.Errorf("a refused upgrade changed kubectl-edit's fields: %v", data)
	}
	if got := statuses(t, ns, "r"); got != "1:deployed 2:failed" {
		t.Errorf("history after the refusal = %s", got)
	}

	mustRun(t, append([]string{"upgrade", "r", chart, "-n", ns, "--force-conflicts", "--wait", "--timeout", "60s"}, changedFields...)...)
	checkChanged(t, ns, "r")
}
