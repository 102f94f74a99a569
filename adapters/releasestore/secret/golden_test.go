package secret_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// The records in testdata/helm-v3.22.0 were written by real Helm v3.22.0
// (`go test ./test/e2e/releases -run Interop -update`): `helm install web` with
// --set greeting=hi --labels team=payments, then `helm upgrade web` with
// --set greeting=bye.
func TestReadsRecordsHelmWrote(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "helm-v3.22.0", "*.yaml"))
	if err != nil || len(files) != 2 {
		t.Fatalf("golden records: %v, %v", files, err)
	}
	var objs []runtime.Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s corev1.Secret
		if err := yaml.UnmarshalStrict(data, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		objs = append(objs, &s)
	}
	s := secret.New(fake.NewClientset(objs...))
	ctx := context.Background()
	h, err := s.History(ctx, "golden", "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 {
		t.Fatalf("history has %d revisions", len(h))
	}
	for i, want := range []struct {
		status   release.Status
		greeting string
	}{{release.StatusSuperseded, "hi"}, {release.StatusDeployed, "bye"}} {
		r := h[i]
		if r.Version != i+1 || r.Info.Status != want.status || r.Config["greeting"] != want.greeting {
			t.Errorf("revision %d: version %d, status %q, config %v", i+1, r.Version, r.Info.Status, r.Config)
		}
		if r.Chart.Metadata.Name != "greeter" || r.Chart.Metadata.Version != "0.3.1" || r.Chart.Values["greeting"] != "hello" {
			t.Errorf("revision %d chart: %+v, values %v", i+1, r.Chart.Metadata, r.Chart.Values)
		}
		if !strings.Contains(r.Manifest, "name: web-greeting") || len(r.Hooks) != 1 || r.Hooks[0].Events[0] != release.HookPostInstall {
			t.Errorf("revision %d: manifest %q, hooks %+v", i+1, r.Manifest, r.Hooks)
		}
		if r.Labels["team"] != "payments" || r.Info.LastDeployed.IsZero() || !strings.Contains(r.Info.Notes, "web says") {
			t.Errorf("revision %d: labels %v, info %+v", i+1, r.Labels, r.Info)
		}
	}
	res, err := s.List(ctx, ports.ListQuery{})
	if err != nil || len(res.Problems) > 0 || len(res.Releases) != 2 {
		t.Fatalf("List = %+v, %v", res, err)
	}
	if got := res.Releases[1]; got.Chart != "greeter-0.3.1" || got.AppVersion != "1.8.0" || got.Status != release.StatusDeployed || got.Description != "Upgrade complete" {
		t.Errorf("summary of a Helm record = %+v", got)
	}
	// Re-encoding keeps Helm's JSON field for field: Helm reads what we rewrite.
	r := h[1]
	r.Info.Status = release.StatusSuperseded
	if err := s.Update(ctx, r); err != nil {
		t.Fatal(err)
	}
	back, err := s.Get(ctx, "golden", "web", 2)
	if err != nil || back.Info.Status != release.StatusSuperseded || back.Config["greeting"] != "bye" {
		t.Fatalf("rewritten record: %+v, %v", back, err)
	}
}
