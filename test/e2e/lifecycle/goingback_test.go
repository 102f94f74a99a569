//go:build e2e

package lifecycle

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// goingBackPeers are the Helms a user goes back to.
var goingBackPeers = []string{helm4, "v3.22.0"}

// forEachPeer runs test in parallel against each Helm of goingBackPeers, in
// a namespace of its own, with the demo chart.
func forEachPeer(t *testing.T, test func(t *testing.T, version, helm, ns, chart string)) {
	t.Parallel()
	for _, version := range goingBackPeers {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			test(t, version, helmPeerVersion(t, version), env.Namespace(t), demoChart(t))
		})
	}
}

// demoState is what the demo chart's objects hold after a step.
type demoState struct {
	message  string
	replicas int64
	// extra and legacy say whether the optional ConfigMaps exist.
	extra, legacy bool
}

// demoValues are the --set of a step that leads to state.
func (s demoState) values() string {
	return fmt.Sprintf("message=%s,replicaCount=%d,extraConfig=%t,legacyConfig=%t", s.message, s.replicas, s.extra, s.legacy)
}

// wantDemo fails t unless the release's objects hold state, and no field is
// left to our earlier field manager.
func wantDemo(t *testing.T, step, ns, release string, s demoState) {
	t.Helper()
	name := release + "-demo"
	cm := get(t, configMaps, ns, name)
	if cm == nil {
		t.Fatalf("after %s: ConfigMap %s is gone", step, name)
	}
	if msg, _, _ := unstructured.NestedString(cm.Object, "data", "message"); msg != s.message {
		t.Errorf("after %s: message = %q, want %q", step, msg, s.message)
	}
	if r, _, _ := unstructured.NestedInt64(get(t, deployments, ns, name).Object, "spec", "replicas"); r != s.replicas {
		t.Errorf("after %s: replicas = %d, want %d", step, r, s.replicas)
	}
	if got := exists(t, configMaps, ns, name+"-extra"); got != s.extra {
		t.Errorf("after %s: ConfigMap %s-extra exists: %v, want %v", step, name, got, s.extra)
	}
	if got := exists(t, configMaps, ns, name+"-legacy"); got != s.legacy {
		t.Errorf("after %s: ConfigMap %s-legacy exists: %v, want %v", step, name, got, s.legacy)
	}
	for _, m := range cm.GetManagedFields() {
		if m.Manager != "helm" {
			t.Errorf("after %s: ConfigMap %s has fields of %s (%s); Helm and we both write as helm", step, name, m.Manager, m.Operation)
		}
	}
}

// wantGone fails t unless uninstall removed the release's objects (its Secret
// is kept by its resource policy) and records.
func wantGone(t *testing.T, step, ns, release string) {
	t.Helper()
	for _, r := range []ref{{configMaps, release + "-demo"}, {deployments, release + "-demo"}, {services, release + "-demo"}} {
		if exists(t, r.gvr, ns, r.name) {
			t.Errorf("after %s: %s %s is left", step, r.gvr.Resource, r.name)
		}
	}
	if !exists(t, secrets, ns, release+"-demo") {
		t.Errorf("after %s: the Secret kept by its resource policy is gone", step)
	}
	if got := statuses(t, ns, release); !strings.Contains(got, "not found") {
		t.Errorf("after %s: records left: %s", step, got)
	}
}

// A release we installed and upgraded goes back to plain Helm: Helm upgrades
// it changing the very fields we set (Helm 4 server-side, as it does for a
// release whose revisions record ssa: what failed with a conflict with our
// old field manager), rolls it back to our revision, upgrades it again and
// uninstalls it, every step exiting 0.
func TestGoingBackToHelm(t *testing.T) {
	forEachPeer(t, func(t *testing.T, version, helm, ns, chart string) {
		installed := demoState{message: "ours-1", replicas: 1, legacy: true}
		upgraded := demoState{message: "ours-2", replicas: 2, extra: true}
		mustRun(t, "install", "r", chart, "-n", ns, "--set", installed.values())
		mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", upgraded.values())
		wantDemo(t, "our upgrade", ns, "r", upgraded)

		theirs := demoState{message: "helm-1", replicas: 3, legacy: true}
		runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", theirs.values())
		wantDemo(t, "Helm's upgrade", ns, "r", theirs)
		if version == helm4 {
			if got := applyMethods(t, ns, "r"); got != "ssa ssa ssa" {
				t.Errorf("apply methods = %s, want Helm 4 on server-side apply after ours", got)
			}
		}
		runHelm(t, helm, "rollback", "r", "2", "-n", ns)
		wantDemo(t, "Helm's rollback to our revision", ns, "r", upgraded)
		again := demoState{message: "helm-2", replicas: 1}
		runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", again.values())
		wantDemo(t, "Helm's upgrade after its rollback", ns, "r", again)
		if got := statuses(t, ns, "r"); got != "1:superseded 2:superseded 3:superseded 4:superseded 5:deployed" {
			t.Errorf("history = %s", got)
		}
		runHelm(t, helm, "uninstall", "r", "-n", ns)
		wantGone(t, "Helm's uninstall", ns, "r")
	})
}

// A release Helm installed and upgraded comes to us and back: we upgrade it
// changing the fields Helm set, roll it back to Helm's revision, Helm
// upgrades it again, and we uninstall it, every step exiting 0.
func TestHelmReleaseByUs(t *testing.T) {
	forEachPeer(t, func(t *testing.T, version, helm, ns, chart string) {
		installed := demoState{message: "helm-1", replicas: 1, legacy: true}
		upgraded := demoState{message: "helm-2", replicas: 2, extra: true, legacy: true}
		runHelm(t, helm, "install", "r", chart, "-n", ns, "--set", installed.values())
		runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", upgraded.values())
		wantDemo(t, "Helm's upgrade", ns, "r", upgraded)

		ours := demoState{message: "ours-1", replicas: 3}
		mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", ours.values())
		wantDemo(t, "our upgrade", ns, "r", ours)
		mustRun(t, "rollback", "r", "2", "-n", ns)
		wantDemo(t, "our rollback to Helm's revision", ns, "r", upgraded)
		back := demoState{message: "helm-3", replicas: 1, extra: true}
		runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", back.values())
		wantDemo(t, "Helm's upgrade after our rollback", ns, "r", back)
		final := demoState{message: "ours-2", replicas: 2}
		mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", final.values())
		wantDemo(t, "our upgrade after Helm's", ns, "r", final)
		if got := statuses(t, ns, "r"); got != "1:superseded 2:superseded 3:superseded 4:superseded 5:superseded 6:deployed" {
			t.Errorf("history = %s", got)
		}
		mustRun(t, "uninstall", "r", "-n", ns)
		wantGone(t, "our uninstall", ns, "r")
	})
}

// Objects an earlier version of us applied as kubectl-chart are taken over by
// the upgrade that follows (no conflict, our old manager keeps nothing), after
// which Helm 4 changes the same fields server-side.
func TestOurOldManagerTakenOver(t *testing.T) {
	t.Parallel()
	helm := helmPeerVersion(t, helm4)
	ns := env.Namespace(t)
	chart := demoChart(t)
	old := demoState{message: "old-1", replicas: 1, legacy: true}
	mustRun(t, "install", "r", chart, "-n", ns, "--set", old.values(), "--field-manager", "kubectl-chart")
	if got := managers(t, ns, "r-demo"); !slices.Equal(got, []string{"kubectl-chart/Apply"}) {
		t.Fatalf("managers as an earlier version wrote them = %v", got)
	}
	// The message as it was: a field both managers hold alike.
	ours := demoState{message: "old-1", replicas: 2, extra: true}
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", ours.values())
	wantDemo(t, "our upgrade", ns, "r", ours)
	theirs := demoState{message: "helm-1", replicas: 3}
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", theirs.values())
	wantDemo(t, "Helm 4's upgrade", ns, "r", theirs)
}

// With --field-manager another name, Helm's fields are still taken over: no
// conflict, and Helm's manager keeps nothing it set.
func TestChosenFieldManagerTakesOverHelm(t *testing.T) {
	forEachPeer(t, func(t *testing.T, version, helm, ns, chart string) {
		runHelm(t, helm, "install", "r", chart, "-n", ns, "--set", demoState{message: "helm-1", replicas: 1, legacy: true}.values())
		mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", demoState{message: "mine", replicas: 2}.values(), "--field-manager", "mine")
		if msg, _, _ := unstructured.NestedString(get(t, configMaps, ns, "r-demo").Object, "data", "message"); msg != "mine" {
			t.Errorf("message = %q", msg)
		}
		if exists(t, configMaps, ns, "r-demo-legacy") {
			t.Error("the upgrade kept the ConfigMap its revision drops")
		}
		if got := managers(t, ns, "r-demo"); !slices.Equal(got, []string{"mine/Apply"}) {
			t.Errorf("managers = %v, want mine's apply alone", got)
		}
	})
}

// Drift on the real control plane tells a field the release's manager wrote
// ("helm": Helm 4 applying a revision it did not get to record, say) from one
// another manager changed, in the table and in -o json.
func TestDriftNamesTheReleaseManager(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	ns := env.Namespace(t)
	mustRun(t, "install", "r", demoChart(t), "-n", ns, "--set", demoState{message: "ours", replicas: 1}.values())
	changeAs := func(gvr schema.GroupVersionResource, name, manager string, change func(*unstructured.Unstructured)) {
		t.Helper()
		live := get(t, gvr, ns, name)
		// The whole object: an apply under the release's own manager
		// drops whatever it leaves out.
		live.SetManagedFields(nil)
		live.SetResourceVersion("")
		delete(live.Object, "status")
		change(live)
		if _, err := env.Dynamic().Resource(gvr).Namespace(ns).Apply(ctx, name, live, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	changeAs(configMaps, "r-demo", "helm", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "by-helm", "data", "message")
	})
	changeAs(deployments, "r-demo", "kubectl-edit", func(u *unstructured.Unstructured) {
		u.Object = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "r-demo"}, "spec": map[string]any{"replicas": int64(3)}}
	})
	r := expectDrift(t, 2, "r", "-n", ns)
	for _, want := range []string{"by-helm   helm (this release)", "3               kubectl-edit"} {
		if !strings.Contains(strings.Join(strings.Fields(r.out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("drift table lacks %q:\n%s", want, r.out)
		}
	}
	var report []struct {
		Objects []struct {
			Fields []struct {
				Path, Manager string
				Release       bool
			}
		}
	}
	if err := json.Unmarshal([]byte(expectDrift(t, 2, "r", "-n", ns, "-o", "json").out), &report); err != nil || len(report) != 1 {
		t.Fatalf("drift -o json: %v", err)
	}
	got := map[string]string{}
	for _, o := range report[0].Objects {
		for _, f := range o.Fields {
			got[f.Path] = fmt.Sprintf("%s %v", f.Manager, f.Release)
		}
	}
	if got[".data.message"] != "helm true" || got[".spec.replicas"] != "kubectl-edit false" {
		t.Errorf("drift -o json attributions = %v", got)
	}
}

// managers lists a ConfigMap's managedFields entries as manager/operation.
func managers(t *testing.T, ns, name string) []string {
	t.Helper()
	var out []string
	for _, m := range get(t, configMaps, ns, name).GetManagedFields() {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	slices.Sort(out)
	return out
}
