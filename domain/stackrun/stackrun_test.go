package stackrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// world is two clusters ("" and "east"), each a memcluster and a memory store.
type world struct {
	clusters map[string]*memcluster.Cluster
	stores   map[string]*memory.Store
	mu       sync.Mutex
	events   []Event
}

func newWorld() *world {
	w := &world{clusters: map[string]*memcluster.Cluster{}, stores: map[string]*memory.Store{}}
	for _, name := range []string{"", "east"} {
		w.clusters[name] = memcluster.New(memcluster.WithClock(fixedClock{}), memcluster.WithNamespaces("apps", "infra"))
		w.stores[name] = memory.New()
	}
	return w
}

func (w *world) Lifecycle(_ context.Context, kubeContext string) (*action.Lifecycle, error) {
	c, ok := w.clusters[kubeContext]
	if !ok {
		return nil, fmt.Errorf("context %q does not exist in the kubeconfig", kubeContext)
	}
	return &action.Lifecycle{Cluster: c, Store: w.stores[kubeContext], Clock: fixedClock{}, ClusterServer: "https://" + kubeContext + ".test"}, nil
}

func (w *world) record(e Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, e)
}

// charts are the test's charts by name; "broken" has an object of a kind no
// cluster serves, so applying it fails.
type charts struct{}

func (charts) LoadChart(_ context.Context, r stack.Release) (*chart.Chart, error) {
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: r.Chart, Version: "0.1.0"}, Values: map[string]any{"size": 1}}
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  size: {{ .Values.size | quote }}\n"
	switch r.Chart {
	case "broken":
		body = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\n"
	case "missing":
		return nil, errors.New(`chart "missing" not found`)
	case "lookup":
		// Reads the ConfigMap of the release "db" in its namespace.
		body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n" +
			"  db: {{ dig \"data\" \"size\" \"none\" (lookup \"v1\" \"ConfigMap\" .Release.Namespace \"db\") | quote }}\n"
	}
	ch.Templates = []*chart.File{{Name: "templates/cm.yaml", Data: []byte(body)}}
	return ch, nil
}

func rel(ctx, ns, name string, needs ...stack.ID) stack.Release {
	return stack.Release{ID: stack.ID{KubeContext: ctx, Namespace: ns, Name: name}, Chart: "demo", Installed: true, Needs: needs}
}

func id(ctx, ns, name string) stack.ID { return stack.ID{KubeContext: ctx, Namespace: ns, Name: name} }

// sample: db (east) <- api <- web, and cache alone.
func sample() stack.Stack {
	return stack.Stack{Environment: "default", Releases: []stack.Release{
		rel("", "apps", "web", id("", "apps", "api")),
		rel("", "apps", "api", id("east", "infra", "db")),
		rel("east", "infra", "db"),
		rel("", "apps", "cache"),
	}}
}

func (w *world) planner() *Planner { return &Planner{Targets: w, Charts: charts{}} }
func (w *world) applier(n int) *Applier {
	return &Applier{Targets: w, Concurrency: n, HistoryMax: 10, Events: w.record, Clock: fixedClock{}}
}

func states(s *Summary) map[string]string {
	out := map[string]string{}
	for _, r := range s.Results {
		v := string(r.State)
		if len(r.BlockedBy) > 0 {
			v += " (" + joinIDs(r.BlockedBy) + ")"
		}
		out[r.ID.String()] = v
	}
	return out
}

func mustPlan(t *testing.T, w *world, s stack.Stack) *stack.Plan {
	t.Helper()
	p, err := w.planner().Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// allIn fails t for each release whose state is not want.
func allIn(t *testing.T, s *Summary, want State) {
	t.Helper()
	for name, st := range states(s) {
		if st != string(want) {
			t.Errorf("%s: %s, want %s", name, st, want)
		}
	}
}

func mustApply(t *testing.T, w *world, p *stack.Plan, n int) *Summary {
	t.Helper()
	return mustDo(t, w.applier(n), p)
}

func mustDo(t *testing.T, a *Applier, p *stack.Plan) *Summary {
	t.Helper()
	sum, err := a.Apply(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestPlanWavesAcrossContexts(t *testing.T) {
	w := newWorld()
	p := mustPlan(t, w, sample())
	want := [][]stack.ID{{id("east", "infra", "db"), id("", "apps", "cache")}, {id("", "apps", "api")}, {id("", "apps", "web")}}
	if fmt.Sprint(p.Waves) != fmt.Sprint(want) {
		t.Errorf("waves = %v, want %v", p.Waves, want)
	}
	for _, r := range p.Releases {
		if r.Action != stack.ActionInstall {
			t.Errorf("%s: action %s, want install", r.ID, r.Action)
		}
	}
	if p.Release(id("east", "infra", "db")).Plan.Cluster != "https://east.test" {
		t.Errorf("db is not planned on its context's cluster")
	}
}

func TestApplyThenUnchanged(t *testing.T) {
	w := newWorld()
	allIn(t, mustApply(t, w, mustPlan(t, w, sample()), 0), StateApplied)
	if _, err := w.stores["east"].Get(context.Background(), "infra", "db", 1); err != nil {
		t.Errorf("db not recorded in east: %v", err)
	}
	again := mustPlan(t, w, sample())
	if again.HasChanges() {
		t.Fatalf("a second plan changes something: %+v", again.Releases)
	}
	allIn(t, mustApply(t, w, again, 0), StateUnchanged)
}

func TestApplyOrderFollowsNeeds(t *testing.T) {
	w := newWorld()
	mustApply(t, w, mustPlan(t, w, sample()), 1)
	var order []string
	running := 0
	for _, e := range w.events {
		switch e.Type {
		case EventStart:
			running++
			if running > 1 {
				t.Errorf("more than --concurrency 1 release running at %s", e.Release)
			}
			order = append(order, e.Release.Name)
		case EventDone, EventFailed:
			if e.Action.Changes() {
				running--
			}
		}
	}
	if slices.Index(order, "db") > slices.Index(order, "api") || slices.Index(order, "api") > slices.Index(order, "web") {
		t.Errorf("applied in order %v: db, api, web must come in that order", order)
	}
}

func TestSavedPlanApplied(t *testing.T) {
	w := newWorld()
	var buf bytes.Buffer
	if err := stack.WritePlan(&buf, mustPlan(t, w, sample())); err != nil {
		t.Fatal(err)
	}
	p, err := stack.ReadPlan(&buf, "stack.plan")
	if err != nil {
		t.Fatal(err)
	}
	allIn(t, mustApply(t, w, p, 0), StateApplied)
}

func TestStalePlanRefusedChangingNothing(t *testing.T) {
	w := newWorld()
	mustApply(t, w, mustPlan(t, w, sample()), 0)
	s := sample()
	for i := range s.Releases {
		s.Releases[i].Set = []stack.SetValue{{Name: "size", Value: "2"}}
	}
	p := mustPlan(t, w, s)
	// Someone edits api's ConfigMap in the default context after the plan.
	ctx := context.Background()
	label := ports.Object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "api", "namespace": "apps", "labels": map[string]any{"edited": "yes"}}}
	if _, err := w.clusters[""].ApplyAs(ctx, "kubectl-edit", label, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	// Planned again when not applying a saved plan.
	fresh := w.applier(0)
	fresh.Replan = w.planner().Replanner(s, false)
	defer func() {
		allIn(t, mustDo(t, fresh, p), StateApplied)
		h, _ := w.stores[""].History(ctx, "apps", "api")
		if len(h) != 2 {
			t.Errorf("api has %d revisions after the apply that planned it again, want 2", len(h))
		}
	}()
	_, err := w.applier(0).Apply(ctx, p)
	if !errors.Is(err, action.ErrPlanStale) || !strings.Contains(err.Error(), "release apps/api: ConfigMap apps/api changed since the plan was made") {
		t.Fatalf("err = %v, want the stale plan naming api's ConfigMap", err)
	}
	for _, r := range s.Releases {
		h, _ := w.stores[r.ID.KubeContext].History(ctx, r.ID.Namespace, r.ID.Name)
		if len(h) != 1 {
			t.Errorf("%s has %d revisions after a refused plan, want 1", r.ID, len(h))
		}
	}
}

func TestFailureStopsDependentsOnly(t *testing.T) {
	w := newWorld()
	s := sample()
	s.Releases[1].Chart = "broken" // api
	sum := mustApply(t, w, mustPlan(t, w, s), 0)
	want := map[string]string{
		"east/infra/db": "applied",
		"apps/api":      "failed",
		"apps/web":      "not started (apps/api)",
		"apps/cache":    "applied",
	}
	if got := states(sum); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("states = %v, want %v", got, want)
	}
	if !sum.Failed() || sum.Results[1].Err == nil {
		t.Errorf("the summary does not say why api failed")
	}
}

func TestInstalledFalseUninstalls(t *testing.T) {
	w := newWorld()
	mustApply(t, w, mustPlan(t, w, sample()), 0)
	s := sample()
	s.Releases[3].Installed = false                                                           // cache: uninstalled
	s.Releases = append(s.Releases, stack.Release{ID: id("", "apps", "gone"), Chart: "demo"}) // never installed
	p := mustPlan(t, w, s)
	if a := p.Release(id("", "apps", "cache")).Action; a != stack.ActionUninstall {
		t.Errorf("cache: %s, want uninstall", a)
	}
	if a := p.Release(id("", "apps", "gone")).Action; a != stack.ActionAbsent {
		t.Errorf("gone: %s, want absent", a)
	}
	got := states(mustApply(t, w, p, 0))
	if got["apps/cache"] != "applied" || got["apps/gone"] != "absent" || got["apps/web"] != "unchanged" {
		t.Errorf("states = %v", got)
	}
	if _, err := w.stores[""].History(context.Background(), "apps", "cache"); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("cache still has a history: %v", err)
	}
}

func TestDestroyReverseOrder(t *testing.T) {
	w := newWorld()
	mustApply(t, w, mustPlan(t, w, sample()), 0)
	p, err := w.planner().PlanDestroy(context.Background(), sample())
	if err != nil {
		t.Fatal(err)
	}
	w.events = nil
	mustApply(t, w, p, 1)
	var order []string
	for _, e := range w.events {
		if e.Type == EventStart {
			order = append(order, e.Release.Name)
		}
	}
	if slices.Index(order, "web") > slices.Index(order, "api") || slices.Index(order, "api") > slices.Index(order, "db") {
		t.Errorf("destroyed in order %v: web, api, db must go in that order", order)
	}
}

func TestPlanRefusals(t *testing.T) {
	tests := map[string]struct {
		edit func(*stack.Stack)
		want string
	}{
		"cycle": {
			edit: func(s *stack.Stack) { s.Releases[2].Needs = []stack.ID{id("", "apps", "web")} },
			want: "needs form a cycle: apps/web -> apps/api -> east/infra/db -> apps/web",
		},
		"unknown context": {
			edit: func(s *stack.Stack) { s.Releases[3].ID.KubeContext = "west" },
			want: `release west/apps/cache: context "west" does not exist in the kubeconfig`,
		},
		"chart that does not load": {
			edit: func(s *stack.Stack) { s.Releases[0].Chart = "missing" },
			want: `release apps/web: chart "missing" not found`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := newWorld()
			s := sample()
			tc.edit(&s)
			_, err := w.planner().Plan(context.Background(), s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestStatusAndDrift(t *testing.T) {
	w := newWorld()
	mustApply(t, w, mustPlan(t, w, sample()), 0)
	ctx := context.Background()
	// db's ConfigMap in east is deleted behind its back.
	if err := w.clusters["east"].Delete(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "infra", Name: "db"}, ""); err != nil {
		t.Fatal(err)
	}
	s := sample()
	s.Releases = append(s.Releases, rel("", "apps", "later"))
	in := &Inspector{Targets: w}
	rows := func(sts []ReleaseStatus) string {
		var b strings.Builder
		for _, st := range sts {
			fmt.Fprintf(&b, "%s %d %q drifted=%v corrected=%v err=%v\n", st.ID, st.Revision, st.Status, st.Drifted(), st.Corrected, st.Err)
		}
		return b.String()
	}
	want := `apps/web 1 "deployed" drifted=false corrected=false err=<nil>
apps/api 1 "deployed" drifted=false corrected=false err=<nil>
east/infra/db 1 "deployed" drifted=true corrected=false err=<nil>
apps/cache 1 "deployed" drifted=false corrected=false err=<nil>
apps/later 0 "" drifted=false corrected=false err=<nil>
`
	if got := rows(in.Status(ctx, s)); got != want {
		t.Errorf("status:\n%s\nwant:\n%s", got, want)
	}
	if got := rows(in.Correct(ctx, s)); !strings.Contains(got, "east/infra/db 1 \"deployed\" drifted=true corrected=true err=<nil>") {
		t.Errorf("correct:\n%s", got)
	}
	if got := rows(in.Status(ctx, s)); got != strings.Replace(want, "drifted=true", "drifted=false", 1) {
		t.Errorf("status after correcting:\n%s", got)
	}
}

func TestPreflightInEveryContextFirst(t *testing.T) {
	w := newWorld()
	p := mustPlan(t, w, sample())
	// east may only read: db cannot be installed there.
	var reader []ports.Access
	for _, v := range []string{"get", "list", "watch"} {
		reader = append(reader, ports.Access{Verb: v, Group: "*", Resource: "*"})
	}
	w.clusters["east"].Restrict(reader...)
	_, err := w.applier(0).Apply(context.Background(), p)
	var pe *plan.PermissionsError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "release east/infra/db: ") {
		t.Fatalf("err = %v, want db's missing permissions", err)
	}
	for _, r := range sample().Releases {
		if _, err := w.stores[r.ID.KubeContext].History(context.Background(), r.ID.Namespace, r.ID.Name); !errors.Is(err, ports.ErrReleaseNotFound) {
			t.Errorf("%s was written although a permission was missing elsewhere: %v", r.ID, err)
		}
	}
	for _, c := range w.clusters[""].Calls(memcluster.VerbApply) {
		if !c.DryRun {
			t.Errorf("applied in the default context: %+v", c)
		}
	}
}
