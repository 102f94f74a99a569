package action

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

func TestDriftAndCorrection(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	if _, err := h.c.Apply(ctx, ports.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	ch := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b"), "d.yaml": deploy("web")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	report := func() map[string]string {
		t.Helper()
		drifts, err := h.l.Drift(ctx, DriftRequest{Namespace: ns, Name: "web"})
		if err != nil || len(drifts) != 1 || drifts[0].Err != nil {
			t.Fatalf("drift = %+v, %v", drifts, err)
		}
		out := map[string]string{}
		for _, s := range drifts[0].Plan.Steps() {
			if s.Action == plan.ActionNoOp {
				continue
			}
			var paths []string
			for _, f := range s.Drift {
				paths = append(paths, f.Path)
			}
			out[s.Ref.Kind+"/"+s.Ref.Name] = string(s.Action) + " " + s.Note + " " + strings.Join(paths, ",")
		}
		return out
	}
	if got := report(); len(got) != 0 {
		t.Errorf("drift right after install: %v", got)
	}
	// Out of band: a value edited, an object deleted, a label removed.
	a, _ := h.c.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"})
	a["data"].(map[string]any)["size"] = "9"
	labels := a["metadata"].(map[string]any)["labels"].(map[string]any)
	delete(labels, ManagedByLabel)
	// Another label keeps the map: the API server drops an emptied one whole.
	labels["edited"] = "by-hand"
	if _, err := h.c.Apply(ctx, a, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Delete(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "b"}, ""); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ConfigMap/a": "update " + driftOwnership + " .data.size,.metadata.labels.app.kubernetes.io/managed-by",
		"ConfigMap/b": "create " + driftMissing + " ",
	}
	got := report()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("drift = %v", got)
	}
	if _, err := h.l.CorrectDrift(ctx, ns, "web"); err != nil {
		t.Fatal(err)
	}
	if got := report(); len(got) != 0 {
		t.Errorf("drift after correction: %v", got)
	}
	hist, _ := h.store.History(ctx, ns, "web")
	if d := hist.Latest().Info.Description; !strings.Contains(d, "drift corrected") || !strings.HasPrefix(d, "Install complete") || hist.Latest().Version != 1 {
		t.Errorf("revision after correction: v%d %q", hist.Latest().Version, d)
	}
}

func TestUpgradeCorrectDrift(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	a, _ := h.c.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"})
	a["data"].(map[string]any)["size"] = "9"
	if _, err := h.c.Apply(ctx, a, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	hist, _ := h.l.history(ctx, ns, "web")
	p, err := h.l.Planner().PlanUpgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, nil), CorrectDrift: true}, hist, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	step := p.Steps()[0]
	if step.Action != plan.ActionUpdate || !step.Force || len(step.Drift) != 1 {
		t.Errorf("step = %s force=%v drift=%v", step.Action, step.Force, step.Drift)
	}
}
