package action_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// What each failed change tells of itself (what Helm 4 logs) and the records
// it leaves, as Helm v4.3.1 leaves them: a rollback whose update fails
// supersedes the latest revision whatever its status (the atomic upgrade's
// failed one, leaving the revision deployed before it as it is).
func TestChangeFailures(t *testing.T) {
	forceReplace := action.Failure{Operation: plan.OpRollback, Cause: action.ErrForceReplaceServerSide, Updating: true}
	tests := map[string]struct {
		run  func(h *applyHarness) error
		want []action.Failure
		// statuses of revisions 1..n after the run.
		statuses []release.Status
	}{
		"rollback with --force-replace": {
			run: func(h *applyHarness) error {
				_, err := h.l.Rollback(context.Background(), action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1, ForceReplace: true, HelmForceReplace: true})
				return err
			},
			want:     []action.Failure{forceReplace},
			statuses: []release.Status{release.StatusSuperseded, release.StatusSuperseded, release.StatusFailed},
		},
		"atomic upgrade with --force-replace, its rollback refused too": {
			run: func(h *applyHarness) error {
				spec := amSpec("newer", action.ServerSideTrue)
				spec.Atomic = true
				_, err := h.l.Upgrade(context.Background(), action.UpgradeRequest{ReleaseSpec: spec, ForceReplace: true, HelmForceReplace: true})
				if want := "an error occurred while rolling back the release. original upgrade error: " + action.ErrForceReplaceServerSide.Error() + ": " + action.ErrForceReplaceServerSide.Error(); err == nil || err.Error() != want {
					t.Errorf("upgrade = %v, want %q", err, want)
				}
				return err
			},
			want: []action.Failure{
				{Operation: plan.OpUpgrade, Cause: action.ErrForceReplaceServerSide, Updating: true},
				forceReplace,
			},
			statuses: []release.Status{release.StatusSuperseded, release.StatusDeployed, release.StatusSuperseded, release.StatusFailed},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			h := newApplyHarness()
			h.install(t, action.ServerSideTrue)
			if _, err := h.upgrade("new", action.ServerSideTrue); err != nil {
				t.Fatal(err)
			}
			err := tt.run(h)
			if !errors.Is(err, action.ErrForceReplaceServerSide) {
				t.Fatalf("err = %v, want %v", err, action.ErrForceReplaceServerSide)
			}
			got := action.Failures(err)
			if len(got) != len(tt.want) {
				t.Fatalf("failures %+v, want %+v", got, tt.want)
			}
			for i, f := range got {
				w := tt.want[i]
				if f.Operation != w.Operation || f.Updating != w.Updating || !errors.Is(f.Cause, w.Cause) {
					t.Errorf("failure %d = %+v, want %+v", i, f, w)
				}
			}
			if got := h.statuses(t); !slices.Equal(got, tt.statuses) {
				t.Errorf("statuses %v, want %v", got, tt.statuses)
			}
		})
	}
}

// A failure before any revision was recorded tells of none.
func TestNoFailuresBeforeARevision(t *testing.T) {
	h := newApplyHarness()
	_, err := h.l.Rollback(context.Background(), action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1})
	if err == nil {
		t.Fatal("a rollback of no release did not fail")
	}
	if got := action.Failures(err); len(got) != 0 {
		t.Errorf("failures %+v, want none", got)
	}
}

// An uninstall that keeps the history leaves no revision deployed: after a
// failed upgrade, the one deployed before it is superseded, as both Helms.
func TestUninstallKeepingHistorySupersedesTheDeployed(t *testing.T) {
	h := newApplyHarness()
	h.install(t, "")
	h.cluster.SetState(memcluster.Selector{Kind: "Deployment", Name: "d"}, memcluster.Failed, "")
	spec := action.ReleaseSpec{Chart: deployChart(), Values: map[string]any{"deploy": true}, ReleaseName: "r", Namespace: amNS,
		WaitSpec: action.WaitSpec{Wait: true, Timeout: time.Second}, Dialect: dialect.Helm4}
	if _, err := h.l.Upgrade(context.Background(), action.UpgradeRequest{ReleaseSpec: spec}); err == nil {
		t.Fatal("the upgrade did not fail")
	}
	if _, err := h.l.Uninstall(context.Background(), action.UninstallRequest{ReleaseName: "r", Namespace: amNS, KeepHistory: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := h.statuses(t), []release.Status{release.StatusSuperseded, release.StatusUninstalled}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

// statuses are the statuses of the release's revisions, oldest first.
func (h *applyHarness) statuses(t *testing.T) []release.Status {
	t.Helper()
	hist, err := h.store.History(context.Background(), amNS, "r")
	if err != nil {
		t.Fatal(err)
	}
	var out []release.Status
	for _, r := range hist {
		out = append(out, r.Info.Status)
	}
	return out
}

// A post-delete hook that fails fails the uninstall only once the release is
// uninstalled, in Helm's words (as Helm v4.3.1 on the dev cluster); a
// pre-delete one leaves it uninstalling.
func TestDeleteHookFailures(t *testing.T) {
	hook := func(ev string) *chart.File {
		return &chart.File{Name: "templates/h.yaml", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    helm.sh/hook: " + ev + "\nspec:\n  containers: [{name: c, image: busybox}]\n")}
	}
	// memcluster's failed Pod does not show why: the failure as the wait had it.
	words := func(ev string) string { return ev + " hook c/templates/h.yaml failed: Pod apps/p: pod failed: Error" }
	tests := map[string]struct {
		event string
		err   string
		want  []release.Status
	}{
		"post-delete": {"post-delete", "uninstallation completed with 1 error(s): " + words("post-delete"), []release.Status{release.StatusUninstalled}},
		"pre-delete":  {"pre-delete", words("pre-delete"), []release.Status{release.StatusUninstalling}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newApplyHarness()
			spec := amSpec("old", "")
			spec.Chart.Templates = append(spec.Chart.Templates, hook(tc.event))
			if _, err := h.l.Install(context.Background(), action.InstallRequest{ReleaseSpec: spec}); err != nil {
				t.Fatal(err)
			}
			h.cluster.SetState(memcluster.Selector{Kind: "Pod", Name: "p"}, memcluster.Failed, "")
			_, err := h.l.Uninstall(context.Background(), action.UninstallRequest{ReleaseName: "r", Namespace: amNS, KeepHistory: true})
			if err == nil || err.Error() != tc.err {
				t.Errorf("uninstall = %v, want %q", err, tc.err)
			}
			if got := h.statuses(t); !slices.Equal(got, tc.want) {
				t.Errorf("statuses %v, want %v", got, tc.want)
			}
		})
	}
}
