package action_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

const amNS = "apps"

type applyHarness struct {
	cluster *memcluster.Cluster
	store   *memory.Store
	l       *action.Lifecycle
}

func newApplyHarness() *applyHarness {
	h := &applyHarness{cluster: memcluster.New(memcluster.WithNamespaces(amNS)), store: memory.New()}
	h.l = &action.Lifecycle{Cluster: h.cluster, Store: h.store}
	return h
}

// configChart renders one ConfigMap x holding .Values.key.
func configChart() *chart.Chart {
	return &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "c", Version: "0.1.0"},
		Values:    map[string]any{"key": "old"},
		Templates: []*chart.File{{Name: "templates/x.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  key: {{ .Values.key | quote }}\n")}},
	}
}

// amSpec renders in the Helm 4 dialect, whose revisions record an apply method.
func amSpec(key string, s action.ServerSide) action.ReleaseSpec {
	return action.ReleaseSpec{Chart: configChart(), Values: map[string]any{"key": key}, ReleaseName: "r", Namespace: amNS, ServerSide: s, Dialect: dialect.Helm4}
}

func (h *applyHarness) install(t *testing.T, s action.ServerSide) {
	t.Helper()
	if _, err := h.l.Install(context.Background(), action.InstallRequest{ReleaseSpec: amSpec("old", s)}); err != nil {
		t.Fatal(err)
	}
}

func (h *applyHarness) upgrade(key string, s action.ServerSide) (*release.Release, error) {
	return h.upgradeIn(dialect.Helm4, key, s)
}

func (h *applyHarness) upgradeIn(d dialect.Dialect, key string, s action.ServerSide) (*release.Release, error) {
	spec := amSpec(key, s)
	spec.Dialect = d
	return h.l.Upgrade(context.Background(), action.UpgradeRequest{ReleaseSpec: spec})
}

// methods lists each revision's apply method, oldest first ("-" for none).
func (h *applyHarness) methods(t *testing.T) string {
	t.Helper()
	hist, err := h.store.History(context.Background(), amNS, "r")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range hist.Sorted() {
		m := string(r.ApplyMethod)
		if m == "" {
			m = "-"
		}
		out = append(out, m)
	}
	return strings.Join(out, " ")
}

// setMethod rewrites a revision's apply method, as another tool would have
// recorded it.
func (h *applyHarness) setMethod(t *testing.T, version int, m release.ApplyMethod) {
	t.Helper()
	r, err := h.store.Get(context.Background(), amNS, "r", version)
	if err != nil {
		t.Fatal(err)
	}
	r.ApplyMethod = m
	if err := h.store.Update(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

func (h *applyHarness) liveKey(t *testing.T) string {
	t.Helper()
	o, err := h.cluster.Get(context.Background(), ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: amNS, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := o["data"].(map[string]any)["key"].(string)
	return v
}

func TestInstallRecordsServerSideApply(t *testing.T) {
	for _, s := range []action.ServerSide{"", action.ServerSideTrue, action.ServerSideAuto} {
		h := newApplyHarness()
		h.install(t, s)
		if got := h.methods(t); got != "ssa" {
			t.Errorf("install with --server-side=%q records %s, want ssa", s, got)
		}
	}
}

// A revision rendered as Helm 3 records no apply method, as Helm 3 writes
// none: that absence is what marks its dialect for the next upgrade.
func TestHelm3DialectRecordsNoApplyMethod(t *testing.T) {
	ctx := context.Background()
	for _, s := range []action.ServerSide{"", action.ServerSideTrue, action.ServerSideAuto} {
		h := newApplyHarness()
		spec := amSpec("old", s)
		spec.Dialect = dialect.Helm3
		rel, err := h.l.Install(ctx, action.InstallRequest{ReleaseSpec: spec})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.upgradeIn(dialect.Helm3, "new", s); err != nil {
			t.Fatal(err)
		}
		if got := h.methods(t); got != "- -" || rel.Dialect() != dialect.Helm3 {
			t.Errorf("helm3 install and upgrade with --server-side=%q record %s, want none", s, got)
		}
	}
}

// --server-side=false is refused before anything changes, on every operation.
func TestClientSideApplyIsRefused(t *testing.T) {
	ctx := context.Background()
	h := newApplyHarness()
	_, err := h.l.Install(ctx, action.InstallRequest{ReleaseSpec: amSpec("old", action.ServerSideFalse)})
	if !errors.Is(err, action.ErrClientSideApply) {
		t.Fatalf("install --server-side=false: %v", err)
	}
	if objs := h.cluster.Objects(memcluster.Selector{Kind: "ConfigMap", Namespace: amNS}); len(objs) != 0 {
		t.Errorf("a refused install created %d objects", len(objs))
	}
	if _, err := h.store.History(ctx, amNS, "r"); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("a refused install recorded a revision: %v", err)
	}

	h.install(t, "")
	if _, err := h.upgrade("new", action.ServerSideFalse); !errors.Is(err, action.ErrClientSideApply) {
		t.Errorf("upgrade --server-side=false: %v", err)
	}
	_, err = h.l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: amSpec("new", action.ServerSideFalse), Install: true})
	if !errors.Is(err, action.ErrClientSideApply) {
		t.Errorf("upgrade --install --server-side=false of an existing release: %v", err)
	}
	if _, err := h.l.Rollback(ctx, action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1, ServerSide: action.ServerSideFalse}); !errors.Is(err, action.ErrClientSideApply) {
		t.Errorf("rollback --server-side=false: %v", err)
	}
	if got, key := h.methods(t), h.liveKey(t); got != "ssa" || key != "old" {
		t.Errorf("after refusals: revisions %q, live key %q", got, key)
	}
	if !strings.Contains(action.ErrClientSideApply.Error(), "--server-side=false") {
		t.Errorf("the refusal does not name the flag: %v", action.ErrClientSideApply)
	}
}

// An upgrade follows the latest revision's apply method with auto (Helm 4's
// latch), keeping a release that Helm applies client-side so for Helm while
// applying server-side itself; true moves the release to server-side apply.
func TestUpgradeServerSideLatches(t *testing.T) {
	tests := map[string]struct {
		previous release.ApplyMethod
		flag     action.ServerSide
		want     string
	}{
		"auto after ssa":                   {release.ApplyServerSide, action.ServerSideAuto, "ssa ssa"},
		"default after ssa":                {release.ApplyServerSide, "", "ssa ssa"},
		"auto after csa":                   {release.ApplyClientSide, action.ServerSideAuto, "csa csa"},
		"auto after none (Helm 3)":         {"", action.ServerSideAuto, "- csa"},
		"true after none moves to ssa":     {"", action.ServerSideTrue, "- ssa"},
		"true after csa moves to ssa":      {release.ApplyClientSide, action.ServerSideTrue, "csa ssa"},
		"true after ssa stays ssa":         {release.ApplyServerSide, action.ServerSideTrue, "ssa ssa"},
		"default after csa stays for helm": {release.ApplyClientSide, "", "csa csa"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newApplyHarness()
			h.install(t, "")
			h.setMethod(t, 1, tc.previous)
			rel, err := h.upgrade("new", tc.flag)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.methods(t); got != tc.want {
				t.Errorf("apply methods %q, want %q", got, tc.want)
			}
			recordsNone := rel.ApplyMethod == "" && strings.HasSuffix(tc.want, "-")
			if string(rel.ApplyMethod) != tc.want[strings.LastIndex(tc.want, " ")+1:] && !recordsNone {
				t.Errorf("the returned revision records %q", rel.ApplyMethod)
			}
			if h.liveKey(t) != "new" {
				t.Errorf("the upgrade did not apply: key %q", h.liveKey(t))
			}
		})
	}
}

// A release Helm 3 installed (client-side, no apply method) upgrades with the
// default: its fields written by Helm's manager are taken over, so that a
// field the chart stops setting goes.
func TestUpgradeOfHelm3Release(t *testing.T) {
	ctx := context.Background()
	h := newApplyHarness()
	h.install(t, "")
	h.setMethod(t, 1, "")
	live, err := h.cluster.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: amNS, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	live["data"].(map[string]any)["key"] = "helm"
	live["data"].(map[string]any)["dropped"] = "by helm"
	if _, err := h.cluster.UpdateAs(ctx, "helm", live); err != nil {
		t.Fatal(err)
	}
	if _, err := h.upgrade("new", ""); err != nil {
		t.Fatalf("upgrade of a Helm 3 release: %v", err)
	}
	o, err := h.cluster.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: amNS, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if data := o["data"].(map[string]any); data["key"] != "new" || data["dropped"] != nil {
		t.Errorf("live data after the upgrade: %v", data)
	}
	if got := h.methods(t); got != "- csa" {
		t.Errorf("apply methods %q, want none, then csa as Helm 4 records on a Helm 3 release", got)
	}
}

// A rollback follows the apply method of the revision it rolls back to, and
// records which revision that was.
func TestRollbackServerSideLatches(t *testing.T) {
	ctx := context.Background()
	h := newApplyHarness()
	h.install(t, "")
	h.setMethod(t, 1, release.ApplyClientSide)
	if _, err := h.upgrade("new", action.ServerSideTrue); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		revision int
		flag     action.ServerSide
		want     release.ApplyMethod
	}{
		{1, "", release.ApplyClientSide},
		{2, action.ServerSideAuto, release.ApplyServerSide},
		{1, action.ServerSideTrue, release.ApplyServerSide},
	} {
		rel, err := h.l.Rollback(ctx, action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: step.revision, ServerSide: step.flag})
		if err != nil {
			t.Fatal(err)
		}
		if rel.ApplyMethod != step.want || rel.Info.RollbackRevision != step.revision || rel.Info.Description != "Rollback to "+string(rune('0'+step.revision)) {
			t.Errorf("rollback to %d with %q: apply method %q, rollback revision %d, description %q",
				step.revision, step.flag, rel.ApplyMethod, rel.Info.RollbackRevision, rel.Info.Description)
		}
	}
	if got := h.methods(t); got != "csa ssa csa ssa ssa" {
		t.Errorf("apply methods %q", got)
	}
	rel, err := h.l.Rollback(ctx, action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 2, Description: "back to two"})
	if err != nil || rel.Info.Description != "back to two" {
		t.Errorf("rollback --description: %v, %+v", err, rel.Info)
	}
}

// Rewriting a revision (superseding it) keeps its apply method.
func TestSupersededRevisionKeepsApplyMethod(t *testing.T) {
	h := newApplyHarness()
	h.install(t, "")
	h.setMethod(t, 1, release.ApplyClientSide)
	if _, err := h.upgrade("new", ""); err != nil {
		t.Fatal(err)
	}
	r, err := h.store.Get(context.Background(), amNS, "r", 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Info.Status != release.StatusSuperseded || r.ApplyMethod != release.ApplyClientSide {
		t.Errorf("superseded revision: status %q, apply method %q", r.Info.Status, r.ApplyMethod)
	}
}

func TestParseServerSide(t *testing.T) {
	for _, ok := range []string{"", "auto", "true", "false"} {
		if got, err := action.ParseServerSide(ok); err != nil || string(got) != ok {
			t.Errorf("ParseServerSide(%q) = %q, %v", ok, got, err)
		}
	}
	_, err := action.ParseServerSide("yes")
	if err == nil || err.Error() != "invalid/unknown release server-side apply method: yes" {
		t.Errorf("ParseServerSide(yes) error = %v, want Helm 4's words", err)
	}
}

// deployChart adds a Deployment d to configChart when .Values.deploy.
func deployChart() *chart.Chart {
	c := configChart()
	c.Templates = append(c.Templates, &chart.File{Name: "templates/d.yaml", Data: []byte(`{{- if .Values.deploy }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: d, image: nginx}]}
{{- end }}
`)})
	return c
}

// --rollback-on-failure is Helm's --atomic: a failed upgrade rolls back to
// the latest revision that was deployed, and the error names the flag as the
// dialect's Helm does, whichever the user gave (Helm 4 "rollback-on-failure",
// Helm 3 "atomic"); with no such revision it says so, as Helm does.
func TestRollbackOnFailure(t *testing.T) {
	ctx := context.Background()
	upgrade := func(h *applyHarness, d dialect.Dialect) (*release.Release, error) {
		spec := action.ReleaseSpec{Chart: deployChart(), Values: map[string]any{"key": "new", "deploy": true}, ReleaseName: "r", Namespace: amNS, Dialect: d,
			WaitSpec: action.WaitSpec{Wait: true, Timeout: time.Second}, Atomic: true}
		return h.l.Upgrade(ctx, action.UpgradeRequest{ReleaseSpec: spec})
	}
	h := newApplyHarness()
	h.install(t, "")
	h.cluster.SetState(memcluster.Selector{Kind: "Deployment", Name: "d"}, memcluster.Failed, "")
	_, err := upgrade(h, dialect.Helm4)
	if err == nil || !strings.HasPrefix(err.Error(), "release r failed, and has been rolled back due to rollback-on-failure being set: ") {
		t.Fatalf("upgrade error: %v", err)
	}
	hist, err := h.store.History(ctx, amNS, "r")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range hist.Sorted() {
		got = append(got, fmt.Sprintf("%d:%s:%d", r.Version, r.Info.Status, r.Info.RollbackRevision))
	}
	if strings.Join(got, " ") != "1:superseded:0 2:failed:0 3:deployed:1" {
		t.Errorf("history %v", got)
	}
	if _, err := upgrade(h, dialect.Helm3); err == nil || !strings.Contains(err.Error(), "due to atomic being set") {
		t.Errorf("--atomic's error: %v", err)
	}

	// Nothing was ever deployed: there is nothing to roll back to.
	h = newApplyHarness()
	h.cluster.SetState(memcluster.Selector{Kind: "Deployment", Name: "d"}, memcluster.Failed, "")
	spec := action.ReleaseSpec{Chart: deployChart(), Values: map[string]any{"deploy": true}, ReleaseName: "r", Namespace: amNS, Dialect: dialect.Helm3,
		WaitSpec: action.WaitSpec{Wait: true, Timeout: time.Second}}
	if _, err := h.l.Install(ctx, action.InstallRequest{ReleaseSpec: spec}); err == nil {
		t.Fatal("the install did not fail")
	}
	if _, err := upgrade(h, dialect.Helm4); err == nil || !strings.HasPrefix(err.Error(), "unable to find a previously successful release when attempting to rollback. original upgrade error: ") {
		t.Errorf("upgrade error without a deployed revision: %v", err)
	}
}

// A rollback to a revision Helm 3 rendered holds Helm 3's manifest, so it
// records no apply method and the next upgrade renders as Helm 3 again.
func TestRollbackToHelm3RevisionKeepsItsDialect(t *testing.T) {
	ctx := context.Background()
	h := newApplyHarness()
	h.install(t, "")
	h.setMethod(t, 1, "")
	if _, err := h.upgrade("new", action.ServerSideTrue); err != nil {
		t.Fatal(err)
	}
	rel, err := h.l.Rollback(ctx, action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rel.ApplyMethod != "" || rel.Dialect() != dialect.Helm3 {
		t.Errorf("rollback to a Helm 3 revision records %q (dialect %s)", rel.ApplyMethod, rel.Dialect())
	}
	if got := h.methods(t); got != "- ssa -" {
		t.Errorf("apply methods %q", got)
	}
}

// The rollback of a failed upgrade is run with the upgrade's --server-side,
// as Helm 4 runs it: true records ssa, auto follows the revision rolled back to.
func TestRollbackOnFailurePassesServerSide(t *testing.T) {
	for flag, want := range map[action.ServerSide]release.ApplyMethod{
		action.ServerSideTrue: release.ApplyServerSide,
		action.ServerSideAuto: release.ApplyClientSide,
	} {
		t.Run(string(flag), func(t *testing.T) {
			h := newApplyHarness()
			h.install(t, "")
			h.setMethod(t, 1, release.ApplyClientSide)
			h.cluster.SetState(memcluster.Selector{Kind: "Deployment", Name: "d"}, memcluster.Failed, "")
			spec := action.ReleaseSpec{Chart: deployChart(), Values: map[string]any{"deploy": true}, ReleaseName: "r", Namespace: amNS,
				WaitSpec: action.WaitSpec{Wait: true, Timeout: time.Second}, Atomic: true, ServerSide: flag, Dialect: dialect.Helm4}
			if _, err := h.l.Upgrade(context.Background(), action.UpgradeRequest{ReleaseSpec: spec}); err == nil {
				t.Fatal("the upgrade did not fail")
			}
			r, err := h.store.Get(context.Background(), amNS, "r", 3)
			if err != nil {
				t.Fatal(err)
			}
			if r.Info.RollbackRevision != 1 || r.ApplyMethod != want {
				t.Errorf("rollback revision: rolled back to %d, apply method %q, want 1 and %q", r.Info.RollbackRevision, r.ApplyMethod, want)
			}
		})
	}
}

// A rollback in the Helm 3 dialect (to a revision without an apply method)
// records no rollback revision: Helm 3 has none.
func TestRollbackInHelm3RecordsNoRollbackRevision(t *testing.T) {
	h := newApplyHarness()
	spec := amSpec("old", "")
	spec.Dialect = dialect.Helm3
	if _, err := h.l.Install(context.Background(), action.InstallRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.upgradeIn(dialect.Helm3, "new", ""); err != nil {
		t.Fatal(err)
	}
	rel, err := h.l.Rollback(context.Background(), action.RollbackRequest{ReleaseName: "r", Namespace: amNS, Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rel.ApplyMethod != "" || rel.Info.RollbackRevision != 0 {
		t.Errorf("apply method %q, rollback revision %d; want none", rel.ApplyMethod, rel.Info.RollbackRevision)
	}
}

// Helm 4 refuses to apply server-side and replace too: the upgrade's
// revision fails before its hooks and objects.
func TestForceReplaceWithServerSideFails(t *testing.T) {
	h := newApplyHarness()
	h.install(t, action.ServerSideTrue)
	spec := amSpec("new", action.ServerSideTrue)
	_, err := h.l.Upgrade(context.Background(), action.UpgradeRequest{ReleaseSpec: spec, ForceReplace: true, HelmForceReplace: true})
	if !errors.Is(err, action.ErrForceReplaceServerSide) {
		t.Fatalf("upgrade = %v, want %v", err, action.ErrForceReplaceServerSide)
	}
	r, err := h.store.Get(context.Background(), amNS, "r", 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Info.Status != release.StatusFailed || h.liveKey(t) != "old" {
		t.Errorf("revision 2 %s, live key %q; want failed and old", r.Info.Status, h.liveKey(t))
	}
}

// An upgrade of a release whose only revision failed starts from it and,
// succeeding, supersedes it, as both Helms do.
func TestUpgradeSupersedesTheFailedRevisionItStartedFrom(t *testing.T) {
	h := newApplyHarness()
	h.cluster.SetState(memcluster.Selector{Kind: "Deployment", Name: "d"}, memcluster.Failed, "")
	spec := action.ReleaseSpec{Chart: deployChart(), Values: map[string]any{"deploy": true}, ReleaseName: "r", Namespace: amNS,
		WaitSpec: action.WaitSpec{Wait: true, Timeout: time.Second}, Dialect: dialect.Helm4}
	if _, err := h.l.Install(context.Background(), action.InstallRequest{ReleaseSpec: spec}); err == nil {
		t.Fatal("the install did not fail")
	}
	spec.Values, spec.WaitSpec = map[string]any{"deploy": false}, action.WaitSpec{}
	if _, err := h.l.Upgrade(context.Background(), action.UpgradeRequest{ReleaseSpec: spec}); err != nil {
		t.Fatal(err)
	}
	r, err := h.store.Get(context.Background(), amNS, "r", 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Info.Status != release.StatusSuperseded {
		t.Errorf("revision 1 is %s, want superseded", r.Info.Status)
	}
}
