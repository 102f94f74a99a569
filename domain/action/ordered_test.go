package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// probe is a custom resource whose status the chart sets (the kind has no
// status subresource), ready when status.ready is true.
func probe(name, group string, ready bool) string {
	return fmt.Sprintf(`apiVersion: example.test/v1
kind: Probe
metadata:
  name: %s
  annotations:
    helm.sh/resource-group: %s
    helm.sh/readiness-success: '["{.ready} == true"]'
    helm.sh/readiness-failure: '["{.failed} == true"]'
status:
  ready: %v
`, name, group, ready)
}

func groupedCM(name, group string, on ...string) string {
	ann := ""
	if group != "" {
		ann = "  annotations:\n    helm.sh/resource-group: " + group + "\n"
		if len(on) > 0 {
			b, _ := json.Marshal(on)
			ann += "    helm.sh/depends-on/resource-groups: '" + string(b) + "'\n"
		}
	}
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n%sdata:\n  k: v\n", name, ann)
}

// orderedChart has three groups (database and queue, then app, which depends
// on both) and an object outside groups.
func orderedChart(dbReady bool) *chart.Chart {
	return demoChart(map[string]string{
		"db.yaml": probe("db", "database", dbReady), "queue.yaml": groupedCM("queue", "queue"),
		"app.yaml": groupedCM("app", "app", "database", "queue"), "plain.yaml": groupedCM("plain", ""),
	})
}

type orderHarness struct {
	cluster *memcluster.Cluster
	store   *memory.Store
	l       *Lifecycle
	mu      sync.Mutex
	events  []Event
}

func newOrderHarness() *orderHarness {
	h := &orderHarness{
		cluster: memcluster.New(memcluster.WithNamespaces(ns), memcluster.WithKind("example.test/v1", "Probe", true)),
		store:   memory.New(),
	}
	h.l = &Lifecycle{Cluster: h.cluster, Store: h.store, Clock: fixedClock{}, Events: func(e Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	}}
	return h
}

// writes lists the apply and delete calls, and waits, in order.
func (h *orderHarness) writes() []string {
	var out []string
	for _, c := range h.cluster.Calls(memcluster.VerbApply, memcluster.VerbDelete, memcluster.VerbWaitReady, memcluster.VerbWaitDeleted) {
		out = append(out, c.Verb+" "+c.Ref.Name)
	}
	return out
}

func (h *orderHarness) messages() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if e.Type == EventPhase || e.Type == EventWarning {
			out = append(out, e.Message)
		}
	}
	return strings.Join(out, "\n")
}

// before reports whether each call of as is made (a first time) before any
// call of bs.
func before(calls []string, as, bs []string) bool {
	first := slices.IndexFunc(calls, func(c string) bool { return slices.Contains(bs, c) })
	if first < 0 {
		return false
	}
	for _, a := range as {
		if i := slices.Index(calls, a); i < 0 || i > first {
			return false
		}
	}
	return true
}

func TestOrderedInstallUpgradeUninstall(t *testing.T) {
	ctx := context.Background()
	h := newOrderHarness()
	s := spec(orderedChart(false), nil)
	s.WaitSpec = WaitSpec{Ordered: true, Wait: true, Timeout: 300 * time.Millisecond}
	_, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: s})
	if err == nil || !strings.Contains(err.Error(), `resource groups "database", "queue" of chart demo is not ready, so the stages after it were not applied`) ||
		!strings.Contains(err.Error(), `Probe apps/db: helm.sh/readiness-success not met: {.ready} == true (got false)`) {
		t.Fatalf("install with the database not ready: %v", err)
	}
	if got := h.cluster.Names(memcluster.Selector{Kind: "ConfigMap", Namespace: ns}); strings.Join(got, ",") != "queue" {
		t.Errorf("config maps after the failed install: %v (want queue only: app and plain wait for database)", got)
	}
	hist, _ := h.store.History(ctx, ns, "web")
	if latest := hist.Latest(); latest.Info.Status != "failed" || !latest.Sequenced() || latest.SequencingInfo.Strategy != "ordered" {
		t.Errorf("record: %s %+v", latest.Info.Status, latest.SequencingInfo)
	}

	// The upgrade meets the check: every group goes, in order.
	h.cluster.ResetCalls()
	s = spec(orderedChart(true), nil)
	s.WaitSpec = WaitSpec{Ordered: true, Wait: true, Timeout: 5 * time.Second}
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: s}); err != nil {
		t.Fatal(err)
	}
	calls := h.writes()
	// queue is unchanged: not applied again, but waited for with db.
	if !before(calls, []string{"apply db", "wait-ready db", "wait-ready queue"}, []string{"apply app"}) ||
		!before(calls, []string{"apply app"}, []string{"apply plain"}) {
		t.Errorf("upgrade calls out of order: %v", calls)
	}
	if got := h.cluster.Names(memcluster.Selector{Kind: "ConfigMap", Namespace: ns}); strings.Join(got, ",") != "app,plain,queue" {
		t.Errorf("config maps after the upgrade: %v", got)
	}
	app := h.cluster.Objects(memcluster.Selector{Kind: "ConfigMap", Name: "app"})[0]
	if a := app.GetAnnotations(); a["helm.sh/resource-group"] != "app" || a["helm.sh/depends-on/resource-groups"] != "" {
		t.Errorf("app's annotations as applied: %v", a)
	}
	hist, _ = h.store.History(ctx, ns, "web")
	if m := hist.Latest().Manifest; !strings.Contains(m, `helm.sh/depends-on/resource-groups: '["database","queue"]'`) {
		t.Errorf("the recorded manifest lost the annotation:\n%s", m)
	}

	// Uninstall: reverse order, each batch gone before the next.
	h.cluster.ResetCalls()
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns}); err != nil {
		t.Fatal(err)
	}
	calls = h.writes()
	if !before(calls, []string{"delete plain"}, []string{"delete app"}) || !before(calls, []string{"delete app", "wait-deleted app"}, []string{"delete db", "delete queue"}) {
		t.Errorf("uninstall calls out of order: %v", calls)
	}
}

// Without --wait=ordered, a chart with annotations is sequenced all the same,
// and the output says so; a failing readiness check ends the wait at once.
func TestOrderedByDefault(t *testing.T) {
	ctx := context.Background()
	h := newOrderHarness()
	pl, err := h.l.PreviewInstall(ctx, InstallRequest{ReleaseSpec: spec(orderedChart(true), nil)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range pl.Stages {
		got = append(got, fmt.Sprintf("%s [%s] wait=%v", st.Batch(), st.Name, st.Wait))
	}
	want := []string{"demo database, queue [ConfigMap] wait=false", "demo database, queue [Probe] wait=true", "demo app [ConfigMap] wait=true", "demo [ConfigMap] wait=false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || pl.Sequencing == nil || pl.Sequencing.Reason != reasonDeclared {
		t.Fatalf("stages:\n%s\nwant:\n%s\nsequencing %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), pl.Sequencing)
	}
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(orderedChart(true), nil)}); err != nil {
		t.Fatal(err)
	}
	if m := h.messages(); !strings.Contains(m, "sequencing (HIP-0025): the chart declares resource groups or subchart dependencies; 3 ordered stage(s), each ready before the next") {
		t.Errorf("output:\n%s", m)
	}

	failing := strings.Replace(probe("db", "database", true), "status:\n  ready: true", "status:\n  ready: false\n  failed: true", 1)
	failing = strings.Replace(failing, "name: db", "name: db2", 1)
	s := spec(demoChart(map[string]string{"db.yaml": failing, "app.yaml": groupedCM("app2", "app", "database")}), nil)
	s.ReleaseName, s.Timeout = "broken", time.Minute
	start := time.Now()
	_, err = h.l.Install(ctx, InstallRequest{ReleaseSpec: s})
	if err == nil || !strings.Contains(err.Error(), "helm.sh/readiness-failure holds: {.failed} == true (got true)") || time.Since(start) > 10*time.Second {
		t.Errorf("install with a failing check: %v after %s", err, time.Since(start))
	}
}

// Cycles, missing groups and objects in two groups are refused before
// anything is applied, naming the groups.
func TestOrderedRefused(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		files map[string]string
		want  string
	}{
		"a cycle": {
			files: map[string]string{"a.yaml": groupedCM("a", "a", "b"), "b.yaml": groupedCM("b", "b", "a")},
			want:  "cannot order the release's objects (HIP-0025): resource groups of chart demo depend on each other in a cycle: a -> b -> a",
		},
		"a missing group": {
			files: map[string]string{"a.yaml": groupedCM("a", "a", "db")},
			want:  `resource group "a" of chart demo depends on resource group "db", which no object of the chart is in`,
		},
		"one object in two groups": {
			files: map[string]string{"a.yaml": groupedCM("a", "a"), "b.yaml": groupedCM("a", "b")},
			want:  `ConfigMap apps/a is in two resource groups of chart demo: "a" and "b"`,
		},
		"a malformed readiness check": {
			files: map[string]string{"a.yaml": strings.Replace(probe("db", "a", true), `{.ready} == true`, `{.ready} ~ true`, 1)},
			want:  "Probe apps/db: helm.sh/readiness-success: readiness expression",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newOrderHarness()
			_, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(demoChart(tc.files), nil)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("install: %v\nwant %q", err, tc.want)
			}
			if calls := h.cluster.Calls(memcluster.VerbApply); len(calls) != 0 {
				t.Errorf("applied: %v", calls)
			}
			if _, err := h.store.History(ctx, ns, "web"); !errors.Is(err, ports.ErrReleaseNotFound) {
				t.Errorf("a record was written: %v", err)
			}
		})
	}
}

// Subcharts go first, in the order of their depends-on; a rollback follows
// the order of the revision rolled back to.
func TestOrderedSubchartsAndRollback(t *testing.T) {
	ctx := context.Background()
	parent := demoChart(map[string]string{"p.yaml": groupedCM("parent", "")})
	parent.Metadata.Dependencies = []*chart.Dependency{
		{Name: "backend", Version: "0.1.0", DependsOn: []string{"database"}},
		{Name: "database", Version: "0.1.0"},
	}
	for _, n := range []string{"backend", "database"} {
		sub := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: n, Version: "0.1.0"},
			Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(groupedCM(n+"-cm", ""))}}}
		parent.AddDependency(sub)
	}
	h := newOrderHarness()
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(parent, nil)}); err != nil {
		t.Fatal(err)
	}
	calls := h.writes()
	if !before(calls, []string{"apply database-cm", "wait-ready database-cm"}, []string{"apply backend-cm"}) ||
		!before(calls, []string{"apply backend-cm"}, []string{"apply parent"}) {
		t.Errorf("install calls out of order: %v", calls)
	}

	// Revision 2 is not sequenced; a rollback to 1 is, to 2 again is not.
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"p.yaml": groupedCM("parent", "")}), nil)}); err != nil {
		t.Fatal(err)
	}
	for rev, sequenced := range map[int]bool{1: true, 2: false} {
		pl, err := h.l.PreviewRollback(ctx, RollbackRequest{ReleaseName: "web", Namespace: ns, Revision: rev})
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.Sequencing != nil && pl.Record.Sequenced(); got != sequenced {
			t.Errorf("rollback to %d sequenced = %v, want %v", rev, got, sequenced)
		}
	}
	// Rolling back to 1 from 2: 2 was not sequenced, so its deletions are not.
	rel, err := h.l.Rollback(ctx, RollbackRequest{ReleaseName: "web", Namespace: ns, Revision: 1})
	if err != nil || !rel.Sequenced() {
		t.Fatalf("rollback: %v", err)
	}
	pl, err := h.l.PreviewUninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, st := range pl.Stages {
		order = append(order, st.Batch())
	}
	if strings.Join(order, " | ") != "demo | demo/backend | demo/database" {
		t.Errorf("uninstall stages: %v", order)
	}
	_ = plan.OpUninstall
}
