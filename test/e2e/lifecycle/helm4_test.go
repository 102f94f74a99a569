//go:build e2e

package lifecycle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/helmrecord"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

var updateHelm4Golden = flag.Bool("update-helm4-golden", false,
	"rewrite the Helm v4.3.1 records in adapters/releasestore/helmrecord/testdata/helm-v4.3.1 from real Helm")

const helm4 = "v4.3.1"

// helm4Golden is where the records Helm 4 wrote are kept for the codec's
// unit tests, with the chart they were written from.
func helm4Golden() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "adapters", "releasestore", "helmrecord", "testdata", "helm-"+helm4)
}

// helmRecords reads the release records of a release as Secrets.
func helmRecords(t *testing.T, ns, name string) []corev1.Secret {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// recordJSON is the JSON of a record as stored: base64 of gzip.
func recordJSON(t *testing.T, data string) map[string]any {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	js, err := helmrecord.Decompress(raw)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Every member of a record Helm 4 wrote survives our rewriting it: decode,
// change the status, encode, and the JSON differs in the status only. With
// -update-helm4-golden the records become the codec's unit-test goldens.
func TestHelm4RecordsSurviveRewrite(t *testing.T) {
	t.Parallel()
	helm := helmPeerVersion(t, helm4)
	ns := env.Namespace(t)
	chart := filepath.Join(helm4Golden(), "chart")
	runHelm(t, helm, "install", "golden", chart, "-n", ns, "--set", "greeting=hi", "--labels", "team=payments")
	runHelm(t, helm, "upgrade", "golden", chart, "-n", ns, "--set", "greeting=bye")
	runHelm(t, helm, "rollback", "golden", "1", "-n", ns)

	secrets := helmRecords(t, ns, "golden")
	if len(secrets) != 3 {
		t.Fatalf("Helm wrote %d records, want 3", len(secrets))
	}
	for _, s := range secrets {
		data := string(s.Data["release"])
		before := recordJSON(t, data)
		if before["apply_method"] != "ssa" {
			t.Errorf("%s: Helm %s recorded apply_method %v", s.Name, helm4, before["apply_method"])
		}
		rel, err := helmrecord.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		rel.Info.Status = release.StatusUnknown
		enc, err := helmrecord.Encode(rel)
		if err != nil {
			t.Fatal(err)
		}
		after := recordJSON(t, enc)
		after["info"].(map[string]any)["status"] = before["info"].(map[string]any)["status"]
		if !reflect.DeepEqual(before, after) {
			b, _ := json.Marshal(before)
			a, _ := json.Marshal(after)
			t.Errorf("%s changed beyond its status:\nhelm: %s\nours: %s", s.Name, b, a)
		}
	}
	if *updateHelm4Golden {
		writeHelm4Golden(t, secrets)
	}
}

func writeHelm4Golden(t *testing.T, secrets []corev1.Secret) {
	dir := helm4Golden()
	for _, s := range secrets {
		out := corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: "golden", Labels: s.Labels},
			Type:       s.Type,
			Data:       s.Data,
		}
		b, err := yaml.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		head := "# Written by real Helm " + helm4 + " (go test ./test/e2e/lifecycle -run TestHelm4RecordsSurviveRewrite\n" +
			"# -update-helm4-golden): helm install golden ./chart --set greeting=hi --labels team=payments,\n" +
			"# helm upgrade golden ./chart --set greeting=bye, helm rollback golden 1. Do not edit.\n"
		if err := os.WriteFile(filepath.Join(dir, s.Name+".yaml"), append([]byte(head), b...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d records to %s", len(secrets), strings.TrimPrefix(dir, "../"))
}

// applyMethods lists the apply_method of each revision's record, oldest
// first ("-" when a record has none).
func applyMethods(t *testing.T, ns, name string) string {
	t.Helper()
	secrets := helmRecords(t, ns, name)
	byVersion := map[string]string{}
	for _, s := range secrets {
		m, _ := recordJSON(t, string(s.Data["release"]))["apply_method"].(string)
		if m == "" {
			m = "-"
		}
		byVersion[s.Labels["version"]] = m
	}
	var out []string
	for v := 1; v <= len(secrets); v++ {
		out = append(out, byVersion[strconv.Itoa(v)])
	}
	return strings.Join(out, " ")
}

func liveGreeting(t *testing.T, ns, release string) string {
	t.Helper()
	g, _, _ := unstructured.NestedString(get(t, configMaps, ns, release+"-fidelity").Object, "data", "greeting")
	return g
}

// sameHistory fails unless Helm's history -o json and ours are equal as JSON values.
func sameHistory(t *testing.T, helm, ns, name, when string) {
	t.Helper()
	var theirs, ours any
	if err := json.Unmarshal([]byte(runHelm(t, helm, "history", name, "-n", ns, "-o", "json")), &theirs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "history", name, "-n", ns, "-o", "json").out), &ours); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(theirs, ours) {
		a, _ := json.Marshal(theirs)
		b, _ := json.Marshal(ours)
		t.Errorf("%s: history -o json differs:\nhelm:          %s\nkubectl-chart: %s", when, a, b)
	}
}

// Helm 4 installs and upgrades, we upgrade and roll back, Helm 4 upgrades
// again: every revision keeps its apply_method, Helm 4 stays on server-side
// apply, and both read the same history.
func TestHelm4InstallOurUpgradeHelm4Upgrade(t *testing.T) {
	t.Parallel()
	helm := helmPeerVersion(t, helm4)
	ns := env.Namespace(t)
	chart := filepath.Join(helm4Golden(), "chart")
	runHelm(t, helm, "install", "r", chart, "-n", ns, "--set", "greeting=hi")
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=h2")

	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours", "--wait")
	if g := liveGreeting(t, ns, "r"); g != "ours" {
		t.Errorf("greeting after our upgrade = %q", g)
	}
	if got := applyMethods(t, ns, "r"); got != "ssa ssa ssa" {
		t.Errorf("apply methods after our upgrade = %s, want ssa on every revision", got)
	}
	if md := runHelm(t, helm, "get", "metadata", "r", "-n", ns); !strings.Contains(md, "APPLY_METHOD: server-side apply") {
		t.Errorf("helm get metadata of our revision:\n%s", md)
	}
	sameHistory(t, helm, ns, "r", "after our upgrade")

	// Helm 4 stays on server-side apply (auto follows our revision).
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours", "--set", "extra=1")
	if got := applyMethods(t, ns, "r"); got != "ssa ssa ssa ssa" {
		t.Errorf("apply methods after Helm's upgrade = %s", got)
	}
	// A value we set is Helm's manager's too (we apply as "helm"): Helm's
	// server-side apply changes it without --force-conflicts.
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=helm")
	if g := liveGreeting(t, ns, "r"); g != "helm" {
		t.Errorf("greeting after Helm's upgrade = %q", g)
	}
	sameHistory(t, helm, ns, "r", "after Helm's upgrades")

	// Our rollback records what Helm 4's does: the revision rolled back to
	// and its apply method.
	mustRun(t, "rollback", "r", "3", "-n", ns, "--wait")
	if g := liveGreeting(t, ns, "r"); g != "ours" {
		t.Errorf("greeting after our rollback = %q", g)
	}
	if got := applyMethods(t, ns, "r"); got != "ssa ssa ssa ssa ssa ssa" {
		t.Errorf("apply methods after our rollback = %s", got)
	}
	sameHistory(t, helm, ns, "r", "after our rollback")
	theirs := runHelm(t, helm, "history", "r", "-n", ns, "--show-rollback-revision")
	ours := mustRun(t, "history", "r", "-n", ns, "--show-rollback-revision").out
	if theirs != ours {
		t.Errorf("history --show-rollback-revision differs from Helm's:\nhelm:\n%q\nkubectl-chart:\n%q", theirs, ours)
	}
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours")
	if got := applyMethods(t, ns, "r"); !strings.HasSuffix(got, " ssa") || strings.Contains(got, "csa") || strings.Contains(got, "-") {
		t.Errorf("apply methods after Helm's last upgrade = %s", got)
	}
	sameHistory(t, helm, ns, "r", "at the end")
}

// A release Helm 3 installed has no apply method: we upgrade it (server-side,
// taking over Helm's fields) and leave it without one, so that Helm 4 goes on
// applying it client-side, changing what we set without conflicts; then we
// keep its csa.
func TestHelm4AfterOurUpgradeOfHelm3Release(t *testing.T) {
	t.Parallel()
	helm3, helm := helmPeer(t), helmPeerVersion(t, helm4)
	ns := env.Namespace(t)
	chart := filepath.Join(helm4Golden(), "chart")
	runHelm(t, helm3, "install", "r", chart, "-n", ns, "--set", "greeting=hi")
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours")
	if got := applyMethods(t, ns, "r"); got != "- -" {
		t.Errorf("apply methods after our upgrade of a Helm 3 release = %s", got)
	}
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=helm4")
	if g := liveGreeting(t, ns, "r"); g != "helm4" {
		t.Errorf("greeting after Helm 4's upgrade = %q", g)
	}
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours2")
	if got := applyMethods(t, ns, "r"); got != "- - csa csa" {
		t.Errorf("apply methods = %s, want - - csa csa", got)
	}
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=helm4b")
	if g := liveGreeting(t, ns, "r"); g != "helm4b" {
		t.Errorf("greeting after Helm 4's second upgrade = %q", g)
	}
	// --server-side=true moves the release to server-side apply, for Helm 4 too.
	mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours3", "--server-side=true")
	if got := applyMethods(t, ns, "r"); got != "- - csa csa csa ssa" {
		t.Errorf("apply methods = %s, want - - csa csa csa ssa", got)
	}
	runHelm(t, helm, "upgrade", "r", chart, "-n", ns, "--set", "greeting=ours3")
	if got := applyMethods(t, ns, "r"); got != "- - csa csa csa ssa ssa" {
		t.Errorf("apply methods after Helm 4 followed = %s", got)
	}
	sameHistory(t, helm, ns, "r", "at the end")
}

// dialectChart writes a chart whose ConfigMap ends in a `|+` block scalar
// followed by blank lines: Helm 4 keeps them in the value, Helm 3 does not,
// so the two releases render it differently.
func dialectChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "keep")
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: keep\nversion: 0.1.0\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-keep\n" +
			"data:\n  script: |+\n    echo {{ .Values.word | default \"hi\" }}\n\n\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// recordManifests maps each revision of a release to its recorded manifest.
func recordManifests(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range helmRecords(t, ns, name) {
		m, _ := recordJSON(t, string(s.Data["release"]))["manifest"].(string)
		out[s.Labels["version"]] = m
	}
	return out
}

// A release keeps rendering as the Helm that installed it: after a Helm 4
// install our upgrade renders as Helm 4, after a Helm 3 install as Helm 3, so
// switching tools changes no ConfigMap (its resourceVersion stays) and the
// manifest we record is the one that Helm recorded.
func TestUpgradeKeepsTheInstallingHelmsRendering(t *testing.T) {
	t.Parallel()
	chart := dialectChart(t)
	tests := map[string]struct {
		helm        func(*testing.T) string
		script      string
		wantMethods string
	}{
		"helm4": {func(t *testing.T) string { return helmPeerVersion(t, helm4) }, "echo hi\n\n\n\n", "ssa ssa"},
		"helm3": {helmPeer, "echo hi\n", "- -"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			helm, ns := tc.helm(t), env.Namespace(t)
			runHelm(t, helm, "install", "r", chart, "-n", ns)
			before := get(t, configMaps, ns, "r-keep")
			if got, _, _ := unstructured.NestedString(before.Object, "data", "script"); got != tc.script {
				t.Fatalf("Helm %s rendered script %q, want %q", name, got, tc.script)
			}
			mustRun(t, "upgrade", "r", chart, "-n", ns, "--wait")
			after := get(t, configMaps, ns, "r-keep")
			if before.GetResourceVersion() != after.GetResourceVersion() {
				got, _, _ := unstructured.NestedString(after.Object, "data", "script")
				t.Errorf("our upgrade changed the ConfigMap Helm %s installed: script %q", name, got)
			}
			if m := recordManifests(t, ns, "r"); m["1"] == "" || m["1"] != m["2"] {
				t.Errorf("our manifest differs from Helm %s's:\nhelm:\n%s\nours:\n%s", name, m["1"], m["2"])
			}
			if got := applyMethods(t, ns, "r"); got != tc.wantMethods {
				t.Errorf("apply methods %s, want %s", got, tc.wantMethods)
			}
			// A change still renders in the release's dialect.
			mustRun(t, "upgrade", "r", chart, "-n", ns, "--set", "word=bye")
			got, _, _ := unstructured.NestedString(get(t, configMaps, ns, "r-keep").Object, "data", "script")
			if want := strings.Replace(tc.script, "hi", "bye", 1); got != want {
				t.Errorf("after a change: script %q, want %q", got, want)
			}
		})
	}
}
