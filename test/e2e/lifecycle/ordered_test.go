//go:build e2e

package lifecycle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
)

// probeCRD serves Probes, whose status the chart sets (no status
// subresource): a stand-in for an object a controller makes ready.
func probeCRD(group string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: probes.%s
spec:
  group: %s
  scope: Namespaced
  names: {kind: Probe, plural: probes, singular: probe, listKind: ProbeList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`, group, group)
}

// groupedConfigMap is a ConfigMap of a resource group depending on others.
func groupedConfigMap(name, group string, on ...string) string {
	b, _ := json.Marshal(on)
	deps := ""
	if len(on) > 0 {
		deps = fmt.Sprintf("    helm.sh/depends-on/resource-groups: '%s'\n", b)
	}
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  annotations:\n    helm.sh/resource-group: %s\n%sdata:\n  k: v\n", name, group, deps)
}

// events reads the JSON events of -o json, in order, as "type object".
func events(t *testing.T, out string) []string {
	t.Helper()
	var list []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct{ Type, Object, Message string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		if e.Object != "" {
			list = append(list, e.Type+" "+e.Object)
		} else {
			list = append(list, e.Type+": "+e.Message)
		}
	}
	return list
}

// inOrder reports whether each of want occurs in events, in that order.
func inOrder(events []string, want ...string) bool {
	at := -1
	for _, w := range want {
		i := slices.Index(events, w)
		if i <= at {
			return false
		}
		at = i
	}
	return true
}

// Three resource groups in a chain, the first with a custom readiness check:
// not met, --wait=ordered --timeout 10s applies the first group only and
// names the check; an upgrade meeting it applies them all; the release
// records that it was sequenced (Helm 3 and 4 still read it); uninstall
// deletes in reverse order.
func TestOrderedResourceGroups(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	group := ns + ".ordered.kubectl-chart.dev"
	t.Cleanup(func() {
		_ = env.Dynamic().Resource(crds).Delete(context.Background(), "probes."+group, metav1.DeleteOptions{})
	})
	chart := chartDir(t, "chain", map[string]string{
		"crds/probes.yaml": probeCRD(group),
		"templates/database.yaml": fmt.Sprintf(`apiVersion: %s/v1
kind: Probe
metadata:
  name: database
  annotations:
    helm.sh/resource-group: database
    helm.sh/readiness-success: '["{.ready} == true"]'
    helm.sh/readiness-failure: '["{.failed} == true"]'
status:
  ready: {{ .Values.ready }}
`, group),
		"templates/backend.yaml":  groupedConfigMap("backend", "backend", "database"),
		"templates/frontend.yaml": groupedConfigMap("frontend", "frontend", "backend"),
		"values.yaml":             "ready: false\n",
	})
	probes := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "probes"}

	r := run(t, nil, "install", "chain", chart, "-n", ns, "--wait=ordered", "--timeout", "10s")
	for _, want := range []string{
		`resource group "database" of chart chain is not ready, so the stages after it were not applied`,
		"Probe " + ns + "/database: helm.sh/readiness-success not met: {.ready} == true (got false)",
	} {
		if r.code == 0 || !strings.Contains(r.err, want) {
			t.Errorf("install with the check not met: exit %d\n%s\nwant %q", r.code, r.err, want)
		}
	}
	if !exists(t, probes, ns, "database") || exists(t, configMaps, ns, "backend") || exists(t, configMaps, ns, "frontend") {
		t.Errorf("after the failed install: database %v, backend %v, frontend %v (want only database)",
			exists(t, probes, ns, "database"), exists(t, configMaps, ns, "backend"), exists(t, configMaps, ns, "frontend"))
	}

	r = mustRun(t, "upgrade", "chain", chart, "-n", ns, "--wait=ordered", "--timeout", "60s", "--set", "ready=true", "--json-events")
	ev := events(t, r.out)
	if !inOrder(ev, "applied Probe "+ns+"/database", "applied ConfigMap "+ns+"/backend", "applied ConfigMap "+ns+"/frontend") {
		t.Errorf("upgrade events out of order:\n%s", strings.Join(ev, "\n"))
	}
	if !slices.ContainsFunc(ev, func(e string) bool {
		return strings.HasPrefix(e, "phase: sequencing (HIP-0025): --wait=ordered; 3 ordered stage(s)")
	}) {
		t.Errorf("the upgrade does not say it is sequenced:\n%s", strings.Join(ev, "\n"))
	}
	for _, name := range []string{"backend", "frontend"} {
		cm := get(t, configMaps, ns, name)
		if cm == nil || cm.GetAnnotations()["helm.sh/resource-group"] != name || cm.GetAnnotations()["helm.sh/depends-on/resource-groups"] != "" {
			t.Errorf("%s after the upgrade: %v", name, cm)
		}
	}
	// As both Helms: the upgrade that follows a failed install supersedes it.
	if got := statuses(t, ns, "chain"); got != "1:superseded 2:deployed" {
		t.Errorf("history: %s", got)
	}
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	h, err := secret.New(client).History(t.Context(), ns, "chain")
	if err != nil || !h.Latest().Sequenced() || h.Latest().SequencingInfo.Strategy != "ordered" {
		t.Errorf("the record does not say it was sequenced: %v", err)
	}
	for _, helm := range []string{helmPeer(t), helmPeerVersion(t, "v4.3.1")} {
		out := runHelm(t, helm, "history", "chain", "-n", ns)
		if !strings.Contains(out, "deployed") || !strings.Contains(out, "failed") {
			t.Errorf("%s history:\n%s", helm, out)
		}
	}

	r = mustRun(t, "uninstall", "chain", "-n", ns, "--json-events")
	ev = events(t, r.out)
	if !inOrder(ev, "deleted ConfigMap "+ns+"/frontend", "deleted ConfigMap "+ns+"/backend", "deleted Probe "+ns+"/database") {
		t.Errorf("uninstall events out of order:\n%s", strings.Join(ev, "\n"))
	}
}

// A subchart depending on another deploys after it, both before the parent;
// the chart declares it, so it is sequenced without --wait=ordered.
func TestOrderedSubcharts(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  k: v\n"
	}
	chart := chartDir(t, "shop", map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\nannotations:\n  helm.sh/depends-on/subcharts: '[\"backend\"]'\n" +
			"dependencies:\n- name: backend\n  version: 0.1.0\n  depends-on: [database]\n- name: database\n  version: 0.1.0\n",
		"templates/shop.yaml":                    cm("shop"),
		"charts/backend/Chart.yaml":              "apiVersion: v2\nname: backend\nversion: 0.1.0\n",
		"charts/backend/templates/backend.yaml":  cm("backend"),
		"charts/database/Chart.yaml":             "apiVersion: v2\nname: database\nversion: 0.1.0\n",
		"charts/database/templates/a-store.yaml": cm("store"),
	})
	g := mustRun(t, "template", "shop", chart, "--graph")
	if want := "STAGE 1  [ConfigMap]  shop/database: objects outside resource groups  then wait until ready\n  ConfigMap store\n" +
		"STAGE 2  [ConfigMap]  shop/backend: objects outside resource groups  then wait until ready\n  ConfigMap backend\n" +
		"STAGE 3  [ConfigMap]  shop: objects outside resource groups\n  ConfigMap shop\n"; !strings.Contains(g.out, want) {
		t.Errorf("template --graph:\n%s\nwant:\n%s", g.out, want)
	}
	r := mustRun(t, "install", "shop", chart, "-n", ns, "--json-events")
	ev := events(t, r.out)
	if !inOrder(ev, "applied ConfigMap "+ns+"/store", "applied ConfigMap "+ns+"/backend", "applied ConfigMap "+ns+"/shop") {
		t.Errorf("install events out of order:\n%s", strings.Join(ev, "\n"))
	}
	if !slices.ContainsFunc(ev, func(e string) bool {
		return strings.HasPrefix(e, "phase: sequencing (HIP-0025): the chart declares resource groups or subchart dependencies; 3 ordered stage(s)")
	}) {
		t.Errorf("the install does not say it is sequenced:\n%s", strings.Join(ev, "\n"))
	}
	d := mustRun(t, "diff", "upgrade", "shop", chart, "-n", ns, "--graph")
	if !strings.Contains(d.out, "STAGE 1  [ConfigMap]  shop/database: objects outside resource groups  then wait until ready\n  ConfigMap "+ns+"/store (no-op)") {
		t.Errorf("diff upgrade --graph:\n%s", d.out)
	}
}
