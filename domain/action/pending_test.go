package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// A pending revision that another tool may still be working on is not run
// over: only one provably abandoned is recovered.
func TestPendingRevisionRecovery(t *testing.T) {
	ctx := context.Background()
	now := fixedClock{}.Now()
	tests := map[string]struct {
		age            time.Duration
		tookOver       bool
		recoverPending bool
		wantErr        bool
	}{
		"recent, written without our lock":           {age: time.Minute, wantErr: true},
		"recent, lock taken over from a dead holder": {age: time.Minute, tookOver: true},
		"recent, the user says it is abandoned":      {age: time.Minute, recoverPending: true},
		"older than the bound":                       {age: PendingAbandonedAfter + time.Second},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness()
			ch := demoChart(map[string]string{"a.yaml": cm("a")})
			if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
				t.Fatal(err)
			}
			// Helm (or Flux) started an upgrade: revision 2 is pending.
			pending := &release.Release{Name: "web", Namespace: ns, Version: 2, Chart: ch, Manifest: "",
				Info: &release.Info{Status: release.StatusPendingUpgrade, LastDeployed: release.Time{Time: now.Add(-tc.age)}}}
			if err := h.store.Create(ctx, pending); err != nil {
				t.Fatal(err)
			}
			h.locker.recovered = tc.tookOver
			h.l.RecoverPending = tc.recoverPending
			_, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, map[string]any{"size": 2})})
			if tc.wantErr {
				if !errors.Is(err, ErrInProgress) || !strings.Contains(err.Error(), "revision 2 of web has been pending-upgrade since") {
					t.Fatalf("error = %v, want ErrInProgress naming the revision", err)
				}
				if got := h.statuses(t, "web"); fmt.Sprint(got) != "[deployed pending-upgrade]" {
					t.Errorf("history = %v, want it untouched", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded failed deployed]" {
				t.Errorf("history = %v", got)
			}
		})
	}
}

// An uninstall killed before it recorded its outcome left the revision
// uninstalling: running it again finishes it.
func TestUninstallAfterInterruptedUninstall(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	rel, err := h.store.Get(ctx, ns, "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := rel.Apply(release.EventUninstallStarted, "Deletion in progress (or silently failed)"); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Update(ctx, rel); err != nil {
		t.Fatal(err)
	}
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns, KeepHistory: true}); err != nil {
		t.Fatalf("uninstall again: %v", err)
	}
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[uninstalled]" {
		t.Errorf("history = %v", got)
	}
	if got := h.names("ConfigMap"); len(got) != 0 {
		t.Errorf("config maps left: %v", got)
	}
}
