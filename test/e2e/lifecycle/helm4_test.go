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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
