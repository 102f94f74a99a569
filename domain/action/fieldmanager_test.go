package action_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

// Drift names who changed a field, and tells the release's own writers
// (Helm's manager, which ours is by default, our earlier one, the one chosen
// with --field-manager) from everyone else; a correction takes the field
// back from either.
func TestDriftAttribution(t *testing.T) {
	tests := map[string]struct {
		// fieldManager is the release's (--field-manager); empty is Helm's.
		fieldManager string
		writer       string
		// update writes with an update (Helm 3's client-side upgrade) rather
		// than an apply.
		update  bool
		release bool
	}{
		"someone else's edit":                          {writer: "kubectl-edit"},
		"helm's apply is the release's":                {writer: "helm", release: true},
		"helm's client-side update is the release's":   {writer: "helm", update: true, release: true},
		"our earlier manager is the release's":         {writer: "kubectl-chart", release: true},
		"a chosen manager's own apply":                 {fieldManager: "mine", writer: "mine", release: true},
		"helm is the release's under a chosen manager": {fieldManager: "mine", writer: "helm", release: true},
		"someone else under a chosen manager":          {fieldManager: "mine", writer: "kubectl-edit"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			h := newApplyHarness()
			h.l.FieldManager = tc.fieldManager
			h.install(t, "")
			ref := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: amNS, Name: "x"}
			live, err := h.cluster.Get(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			live["data"].(map[string]any)["key"] = "changed"
			if tc.update {
				_, err = h.cluster.UpdateAs(ctx, tc.writer, live)
			} else {
				// The whole object, as the release's manager applies it (a
				// partial one would drop what it owned besides).
				md := live["metadata"].(map[string]any)
				for _, k := range []string{"managedFields", "resourceVersion", "uid", "creationTimestamp"} {
					delete(md, k)
				}
				_, err = h.cluster.ApplyAs(ctx, tc.writer, live, ports.ApplyOptions{ForceConflicts: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			fields := driftedFields(t, h)
			if len(fields) != 1 || fields[0] != tc.writer+" "+map[bool]string{true: "release", false: "other"}[tc.release] {
				t.Errorf("drifted fields = %v, want one by %s (release: %v)", fields, tc.writer, tc.release)
			}
			if _, err := h.l.CorrectDrift(ctx, amNS, "r"); err != nil {
				t.Fatal(err)
			}
			if fields := driftedFields(t, h); len(fields) != 0 {
				t.Errorf("drift after the correction: %v", fields)
			}
		})
	}
}

// driftedFields lists the drifted fields of release r as "manager release"
// or "manager other".
func driftedFields(t *testing.T, h *applyHarness) []string {
	t.Helper()
	drifts, err := h.l.Drift(context.Background(), action.DriftRequest{Namespace: amNS, Name: "r"})
	if err != nil || len(drifts) != 1 || drifts[0].Err != nil {
		t.Fatalf("drift = %+v, %v", drifts, err)
	}
	var out []string
	for _, s := range drifts[0].Plan.Steps() {
		if s.Action == plan.ActionNoOp {
			continue
		}
		for _, f := range s.Drift {
			who := "other"
			if f.Release {
				who = "release"
			}
			out = append(out, f.Manager+" "+who)
		}
	}
	slices.Sort(out)
	return out
}

// An upgrade that changes nothing in an object still takes it over from our
// earlier field manager (or Helm's, under a chosen one): left to that name,
// the object would conflict with Helm 4's next upgrade changing it.
func TestUpgradeTakesOverUnchangedObjects(t *testing.T) {
	tests := map[string]struct{ before, after, helmNext string }{
		"from our earlier manager to helm's": {before: "kubectl-chart", helmNext: "helm"},
		"from helm's to a chosen manager":    {before: "helm", after: "mine", helmNext: "mine"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			h := newApplyHarness()
			h.l.FieldManager = tc.before
			h.install(t, "")
			h.l.FieldManager = tc.after
			if _, err := h.upgrade("old", ""); err != nil {
				t.Fatal(err)
			}
			ref := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: amNS, Name: "x"}
			live, err := h.cluster.Get(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			want := ports.FieldManagerOr(tc.after) + "/Apply"
			if got := porttest.ManagersOf(live); !slices.Equal(got, []string{want}) {
				t.Errorf("managers after an upgrade that changes nothing = %v, want %s alone", got, want)
			}
			// The next apply as the release's manager changes the field freely.
			md := live["metadata"].(map[string]any)
			for _, k := range []string{"managedFields", "resourceVersion", "uid", "creationTimestamp"} {
				delete(md, k)
			}
			live["data"] = map[string]any{"key": "next"}
			if _, err := h.cluster.ApplyAs(ctx, tc.helmNext, live, ports.ApplyOptions{}); err != nil {
				t.Errorf("the next apply as %s: %v", tc.helmNext, err)
			}
		})
	}
}
