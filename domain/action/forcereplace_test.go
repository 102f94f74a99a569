package action

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// A change the server refuses (an immutable field) with --force: as kubectl
// chart the object is deleted and created again; installed as helm the
// upgrade fails as Helm 3's replacement with an update does, in its words,
// the object left as it was.
func TestForceReplaceOfARefusedChange(t *testing.T) {
	tests := map[string]struct {
		helm      bool
		wantErr   string
		recreated bool
	}{
		"as kubectl chart": {recreated: true},
		"as helm":          {helm: true, wantErr: "failed to replace object: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			h := newHarness(memcluster.WithImmutable("ConfigMap", "data.size"))
			ch := demoChart(map[string]string{"a.yaml": cm("a")})
			if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
				t.Fatal(err)
			}
			ref := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"}
			before, err := h.c.Get(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, map[string]any{"size": 2}), ForceReplace: true, HelmForceReplace: tc.helm})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("upgrade: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
				t.Fatalf("upgrade = %v, want an error starting %q", err, tc.wantErr)
			}
			after, err := h.c.Get(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			uid := func(o ports.Object) any { return o["metadata"].(map[string]any)["uid"] }
			if recreated := uid(after) != uid(before); recreated != tc.recreated {
				t.Errorf("recreated = %v, want %v", recreated, tc.recreated)
			}
		})
	}
}

// Installed as helm, --force writes every object that exists whole with an
// update, changed or not, as Helm's does; what does not exist is applied.
func TestHelmForceReplacesEveryObject(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	h.c.ResetCalls()
	next := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b")})
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(next, nil), ForceReplace: true, HelmForceReplace: true}); err != nil {
		t.Fatal(err)
	}
	var writes []string
	for _, c := range h.c.Calls(memcluster.VerbApply, memcluster.VerbReplace, memcluster.VerbCreate, memcluster.VerbDelete) {
		if !c.DryRun {
			writes = append(writes, c.String())
		}
	}
	sort.Strings(writes) // the objects of a kind are written at once
	if got, want := strings.Join(writes, ", "), "apply ConfigMap apps/b, replace ConfigMap apps/a"; got != want {
		t.Errorf("writes = %s, want %s", got, want)
	}
}

// A rollback whose objects the server refuses supersedes the revision it
// started from, deployed or failed, as both Helms do.
func TestRefusedRollbackSupersedesItsStart(t *testing.T) {
	ctx := context.Background()
	h := newHarness(memcluster.WithImmutable("ConfigMap", "data.size"))
	ch := demoChart(map[string]string{"a.yaml": cm("a")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, map[string]any{"size": 2})}); err == nil {
		t.Fatal("the upgrade changed an immutable field")
	}
	if _, err := h.l.Rollback(ctx, RollbackRequest{ReleaseName: "web", Namespace: ns, Revision: 2}); err == nil {
		t.Fatal("the rollback changed an immutable field")
	}
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[deployed superseded failed]" {
		t.Errorf("history = %v, want the failed revision rolled back from superseded", got)
	}
}
