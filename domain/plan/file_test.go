package plan

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

func configMap(name, value string) ports.Object {
	return ports.Object{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "prod"},
		"data":     map[string]any{"key": value},
	}
}

func samplePlan() *Plan {
	p := New(OpUpgrade, OpUpgrade)
	p.Cluster = "https://127.0.0.1:6443"
	p.Release = ReleaseRef{Name: "web", Namespace: "prod", Revision: 3, Base: 2, BaseStatus: release.StatusDeployed}
	p.Record = &release.Release{Name: "web", Namespace: "prod", Version: 3, Manifest: "---\n", Info: &release.Info{Status: release.StatusPendingUpgrade}}
	live := configMap("web", "old")
	live["metadata"].(map[string]any)["resourceVersion"] = "41"
	p.Stages = []Stage{{Name: "ConfigMap", Steps: []Step{{
		Ref: ports.RefOf(live), Action: ActionUpdate, Observed: &Observed{ResourceVersion: "41", UID: "u1"},
		Desired: configMap("web", "new"), Live: live, Result: configMap("web", "new"),
	}}}}
	return p
}

func TestFileRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, samplePlan()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	if got.Release != samplePlan().Release || len(got.Steps()) != 1 || got.Steps()[0].Observed.ResourceVersion != "41" {
		t.Errorf("round trip lost data: %+v", got)
	}
}

func TestFileRefusals(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, samplePlan()); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	otherRelease := samplePlan()
	otherRelease.Record.Name = "api"
	var other bytes.Buffer
	if err := Write(&other, otherRelease); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		data string
		want string
	}{
		"truncated":         {good[:len(good)/2], "truncated or not JSON"},
		"empty":             {"", "truncated or not JSON"},
		"edited value":      {strings.Replace(good, `"new"`, `"evil"`, 1), "digest mismatch"},
		"other version":     {strings.Replace(good, FileAPIVersion, "kubectl-chart.io/v9", 1), "format kubectl-chart.io/v9 is not supported"},
		"not a plan":        {`{"apiVersion":"v1","kind":"ConfigMap"}`, "not a saved plan"},
		"record of another": {other.String(), "its record is of another release"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.data), "plan.json")
			if err == nil {
				t.Fatal("read a bad plan file")
			}
			if !errors.Is(err, ErrInvalidFile) {
				t.Errorf("error %v is not ErrInvalidFile", err)
			}
			if !strings.Contains(err.Error(), "plan file plan.json") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name the file and %q", err, tc.want)
			}
		})
	}
}

func TestFileTooLarge(t *testing.T) {
	_, err := Read(&endless{}, "big.json")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("error = %v, want a size refusal", err)
	}
}

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
