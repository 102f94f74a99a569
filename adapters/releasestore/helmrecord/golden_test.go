package helmrecord

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// The records in testdata/helm-v4.3.1 were written by real Helm v4.3.1 from
// testdata/helm-v4.3.1/chart (go test ./test/e2e/lifecycle -run
// TestHelm4RecordsSurviveRewrite -update-helm4-golden): helm install golden
// --set greeting=hi --labels team=payments, helm upgrade golden --set
// greeting=bye, helm rollback golden 1. They hold what Helm 3's records do
// not: apply_method, info.rollback_revision, the chart's modtime and
// schemamodtime, each file's modtime, and zero times left out.
func helm4Records(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "helm-v4.3.1", "*.yaml"))
	if err != nil || len(files) != 3 {
		t.Fatalf("golden records: %v, %v", files, err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s corev1.Secret
		if err := yaml.UnmarshalStrict(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[s.Name] = string(s.Data["release"])
	}
	return out
}

func jsonOf(t *testing.T, data string) map[string]any {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	js, err := Decompress(raw)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Decoding a record Helm 4 wrote, changing its status and encoding it again
// changes the status and nothing else, at any depth.
func TestHelm4RecordRewriteChangesOnlyWhatChanged(t *testing.T) {
	for name, data := range helm4Records(t) {
		t.Run(name, func(t *testing.T) {
			before := jsonOf(t, data)
			r, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			r.Info.Status = release.StatusSuperseded
			if before["info"].(map[string]any)["status"] == string(release.StatusSuperseded) {
				r.Info.Status = release.StatusFailed
			}
			enc, err := Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			after := jsonOf(t, enc)
			changed := diffPaths("", before, after)
			if len(changed) != 1 || changed[0] != "info.status" {
				t.Errorf("rewriting changed %v, want only info.status", changed)
			}
		})
	}
}

// What this model knows of a Helm 4 record is read, the rest is kept.
func TestHelm4RecordDecodes(t *testing.T) {
	recs := helm4Records(t)
	r, err := Decode(recs["sh.helm.release.v1.golden.v3"])
	if err != nil {
		t.Fatal(err)
	}
	if r.ApplyMethod != release.ApplyServerSide || r.Info.RollbackRevision != 1 || r.Info.Description != "Rollback to 1" {
		t.Errorf("rollback revision: apply method %q, rollback revision %d, description %q", r.ApplyMethod, r.Info.RollbackRevision, r.Info.Description)
	}
	if r.Chart.Metadata.Name != "fidelity" || len(r.Chart.Metadata.Dependencies) != 1 || r.Chart.Lock == nil || len(r.Hooks) != 1 {
		t.Errorf("chart %+v, lock %+v, hooks %d", r.Chart.Metadata, r.Chart.Lock, len(r.Hooks))
	}
	if r.Hooks[0].LastRun.Phase != release.HookPhaseSucceeded || r.Hooks[0].LastRun.StartedAt.IsZero() || !r.Info.Deleted.IsZero() {
		t.Errorf("hook run %+v, deleted %v", r.Hooks[0].LastRun, r.Info.Deleted)
	}
	enc, err := json.Marshal(r.Chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"schemamodtime":`, `"modtime":`} {
		if !strings.Contains(string(enc), member) {
			t.Errorf("the chart lost %s", member)
		}
	}
}

// diffPaths lists the dotted paths where two decoded JSON documents differ.
func diffPaths(path string, a, b any) []string {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return []string{path}
		}
		var out []string
		for k, v := range av {
			w, ok := bv[k]
			if !ok {
				out = append(out, join(k)+" (removed)")
				continue
			}
			out = append(out, diffPaths(join(k), v, w)...)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				out = append(out, join(k)+" (added)")
			}
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return []string{path}
		}
		var out []string
		for i := range av {
			out = append(out, diffPaths(join(strconv.Itoa(i)), av[i], bv[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(a, b) {
		return []string{path}
	}
	return nil
}
