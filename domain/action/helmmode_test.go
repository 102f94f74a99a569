package action

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Installed as helm, a pending revision is left as both Helms leave it: an
// upgrade is refused in Helm's words, however old the revision, and an
// uninstall goes on, nothing recovered first.
func TestHelmLeavesPendingRevisions(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	h.l.Helm = true
	ch := demoChart(map[string]string{"a.yaml": cm("a")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	old := fixedClock{}.Now().Add(-2 * PendingAbandonedAfter)
	pending := &release.Release{Name: "web", Namespace: ns, Version: 2, Chart: ch,
		Info: &release.Info{Status: release.StatusPendingRollback, LastDeployed: release.Time{Time: old}}}
	if err := h.store.Create(ctx, pending); err != nil {
		t.Fatal(err)
	}
	_, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, map[string]any{"size": 2})})
	if err == nil || err.Error() != "another operation (install/upgrade/rollback) is in progress" {
		t.Fatalf("upgrade = %v, want Helm's refusal", err)
	}
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns, KeepHistory: true}); err != nil {
		t.Fatal(err)
	}
	// Both Helms' uninstall supersedes every other deployed revision.
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded uninstalled]" {
		t.Errorf("history = %v, want the pending revision uninstalled and the first superseded", got)
	}
}

// Installed as helm, --dry-run=server renders without asking the API server
// to dry-run the objects: one it would refuse (in a namespace that does not
// exist) is shown, as Helm shows it.
func TestHelmServerDryRunRefusesNothing(t *testing.T) {
	ctx := context.Background()
	broken := demoChart(map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: nowhere\n"})
	for _, helm := range []bool{false, true} {
		h := newHarness()
		h.l.Helm = helm
		_, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: ReleaseSpec{Chart: broken, ReleaseName: "web", Namespace: ns, DryRun: DryRunServer, Dialect: dialect.Helm4}})
		if refused := err != nil; refused == helm {
			t.Errorf("helm %v: dry run = %v, want refused only as kubectl chart", helm, err)
		}
	}
}
