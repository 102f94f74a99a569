package action

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// fakeLocker hands out one lock at a time.
type fakeLocker struct {
	mu        sync.Mutex
	held      bool
	recovered bool
	// lost is returned by every lock's Lost.
	lost chan struct{}
}

type fakeLock struct{ l *fakeLocker }

func (f *fakeLocker) Acquire(_ context.Context, ns, name string, h ports.LockHolder) (ports.Lock, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held {
		return nil, &ports.LockedError{Namespace: ns, Name: name, Holder: ports.LockHolder{User: "other"}}
	}
	f.held = true
	return fakeLock{f}, nil
}

func (l fakeLock) Release(context.Context) error {
	l.l.mu.Lock()
	l.l.held = false
	l.l.mu.Unlock()
	return nil
}
func (l fakeLock) Lost() <-chan struct{} { return l.l.lost }
func (l fakeLock) Recovered() (ports.LockHolder, bool) {
	return ports.LockHolder{User: "dead"}, l.l.recovered
}

const ns = "apps"

func demoChart(files map[string]string) *chart.Chart {
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "0.1.0"}, Values: map[string]any{"size": 1}}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(n, "crds/") {
			ch.Files = append(ch.Files, &chart.File{Name: n, Data: []byte(files[n])})
			continue
		}
		ch.Templates = append(ch.Templates, &chart.File{Name: "templates/" + n, Data: []byte(files[n])})
	}
	return ch
}

func cm(name string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  size: {{ .Values.size | quote }}\n", name)
}

func deploy(name string) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: 1\n", name)
}

type harness struct {
	c      *memcluster.Cluster
	store  *memory.Store
	locker *fakeLocker
	l      *Lifecycle
	// mu guards events: the use cases report from many goroutines.
	mu     sync.Mutex
	events []Event
}

// newHarness runs the use cases on a memcluster holding namespace ns (and
// what opts add), a memory store and a fake locker.
func newHarness(opts ...memcluster.Option) *harness {
	h := &harness{c: memcluster.New(append([]memcluster.Option{memcluster.WithNamespaces(ns)}, opts...)...), store: memory.New(), locker: &fakeLocker{}}
	h.l = &Lifecycle{Cluster: h.c, Store: h.store, Locker: h.locker, Clock: fixedClock{}, Events: func(e Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	}}
	return h
}

// names lists the names of the cluster's objects of kind, sorted.
func (h *harness) names(kind string) []string { return h.c.Names(memcluster.Selector{Kind: kind}) }

// writes lists the applies and deletes the cluster received, as "apply
// ConfigMap apps/a" (dry runs left out).
func (h *harness) writes() []string {
	var out []string
	for _, c := range h.c.Calls(memcluster.VerbApply, memcluster.VerbCreate, memcluster.VerbDelete) {
		if !c.DryRun {
			out = append(out, c.String())
		}
	}
	return out
}

// stuck is a Deployment that never becomes available.
func (h *harness) stuck() {
	h.c.SetState(memcluster.Selector{Kind: "Deployment", Name: "stuck"}, memcluster.Pending, "0 of 1 replicas available")
}

// onStuckWait calls f once a wait reports the stuck Deployment not ready:
// the operation is then under way, waiting.
func (h *harness) onStuckWait(f func()) {
	var once sync.Once
	events := h.l.Events
	h.l.Events = func(e Event) {
		events(e)
		if e.Type == EventStatus && e.Object == "Deployment apps/stuck" && e.Ready != nil && !*e.Ready {
			once.Do(f)
		}
	}
}

func (h *harness) statuses(t *testing.T, name string) []release.Status {
	t.Helper()
	hist, err := h.store.History(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []release.Status
	for _, r := range hist.Sorted() {
		out = append(out, r.Info.Status)
	}
	return out
}

func spec(ch *chart.Chart, vals map[string]any) ReleaseSpec {
	return ReleaseSpec{Chart: ch, Values: vals, ReleaseName: "web", Namespace: ns, Dialect: dialect.Helm3}
}

// A release whose custom resources' CRD is gone (a new cluster, a deleted CRD)
// still uninstalls: objects of kinds the cluster does not serve cannot exist.
func TestUninstallWithUnservedKind(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a"), "crds/crd.yaml": crdFile, "w.yaml": "apiVersion: example.test/v1\nkind: Widget\nmetadata:\n  name: w\n"})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Delete(ctx, ports.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.test"}, ports.PropagationBackground); err != nil {
		t.Fatal(err)
	}
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns}); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if got := h.names("ConfigMap"); len(got) != 0 {
		t.Errorf("config maps after uninstall = %v", got)
	}
}

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	v1 := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b"), "d.yaml": deploy("web"),
		"NOTES.txt": "hello {{ .Release.Name }}", "crds/crd.yaml": crdFile})
	rel, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(v1, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Info.Notes != "hello web" || rel.Info.Status != release.StatusDeployed {
		t.Errorf("install: notes %q status %s", rel.Info.Notes, rel.Info.Status)
	}
	if got := h.names("ConfigMap"); strings.Join(got, ",") != "a,b" {
		t.Errorf("config maps after install = %v", got)
	}
	if got := h.names("CustomResourceDefinition"); len(got) != 1 {
		t.Errorf("CRDs after install = %v", got)
	}
	live, _ := h.c.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"})
	if live.GetLabels()[ManagedByLabel] != "Helm" || live.GetAnnotations()[ReleaseNameAnnotation] != "web" || live.GetAnnotations()[ReleaseNamespaceAnnotation] != ns {
		t.Errorf("ownership metadata = %v %v", live.GetLabels(), live.GetAnnotations())
	}
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(v1, nil)}); !errors.Is(err, releasename.ErrInUse) {
		t.Errorf("second install = %v", err)
	}

	// Upgrade: b dropped, c added, values changed.
	v2 := demoChart(map[string]string{"a.yaml": cm("a"), "c.yaml": cm("c"), "d.yaml": deploy("web")})
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, map[string]any{"size": 2})}); err != nil {
		t.Fatal(err)
	}
	if got := h.names("ConfigMap"); strings.Join(got, ",") != "a,c" {
		t.Errorf("config maps after upgrade = %v", got)
	}
	live, _ = h.c.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"})
	if s := live["data"].(map[string]any)["size"]; s != "2" {
		t.Errorf("size after upgrade = %q", s)
	}
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded deployed]" {
		t.Errorf("history after upgrade = %v", got)
	}

	rel, err = h.l.Rollback(ctx, RollbackRequest{ReleaseName: "web", Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Version != 3 || rel.Info.Description != "Rollback to 1" {
		t.Errorf("rollback = v%d %q", rel.Version, rel.Info.Description)
	}
	if got := h.names("ConfigMap"); strings.Join(got, ",") != "a,b" {
		t.Errorf("config maps after rollback = %v", got)
	}
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded superseded deployed]" {
		t.Errorf("history after rollback = %v", got)
	}

	res, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns, KeepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Release.Info.Status != release.StatusUninstalled {
		t.Errorf("uninstall status = %s", res.Release.Info.Status)
	}
	if got := append(h.names("ConfigMap"), h.names("Deployment")...); len(got) != 0 {
		t.Errorf("objects after uninstall = %v", got)
	}
	if got := h.names("CustomResourceDefinition"); len(got) != 1 {
		t.Errorf("CRDs must survive uninstall: %v", got)
	}
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.History(ctx, ns, "web"); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("history after purge: %v", err)
	}
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns}); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("uninstall of a missing release = %v", err)
	}
	if res, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns, IgnoreNotFound: true}); err != nil || !res.NotFound {
		t.Errorf("--ignore-not-found = %v, %v", res, err)
	}
	// A dry run only reads the release, as Helm's: the read's error, as it is.
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "Bad_Name", Namespace: ns, DryRun: true}); err == nil || err.Error() != "releaseContent: Release name is invalid: Bad_Name" {
		t.Errorf("dry run of an invalid name = %v", err)
	}
	if _, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns, DryRun: true}); err == nil || err.Error() != "release: not found" {
		t.Errorf("dry run of a missing release = %v, want release: not found", err)
	}
	if res, err := h.l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns, DryRun: true, IgnoreNotFound: true}); err != nil || !res.NotFound {
		t.Errorf("dry run with --ignore-not-found = %v, %v", res, err)
	}
}

func TestOwnership(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		labels, annotations map[string]string
		take                bool
		wantErr             string
	}{
		"unowned":             {wantErr: `ConfigMap "a" in namespace "apps" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by"`},
		"other release":       {labels: map[string]string{ManagedByLabel: "Helm"}, annotations: map[string]string{ReleaseNameAnnotation: "other", ReleaseNamespaceAnnotation: ns}, wantErr: `key "meta.helm.sh/release-name" must equal "web": current value is "other"`},
		"take ownership":      {take: true},
		"adopt Helm's object": {labels: map[string]string{ManagedByLabel: "Helm"}, annotations: map[string]string{ReleaseNameAnnotation: "web", ReleaseNamespaceAnnotation: ns}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness()
			existing := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": ns}}
			existing.SetLabels(tc.labels)
			existing.SetAnnotations(tc.annotations)
			_, _ = h.c.Apply(ctx, existing, ports.ApplyOptions{})
			req := InstallRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": cm("a")}), nil)}
			req.TakeOwnership = tc.take
			_, err := h.l.Install(ctx, req)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if _, err := h.store.History(ctx, ns, "web"); !errors.Is(err, ports.ErrReleaseNotFound) {
				t.Errorf("a refused install left history: %v", err)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	ctx := context.Background()
	good := demoChart(map[string]string{"a.yaml": cm("a"), "d.yaml": deploy("web")})
	bad := demoChart(map[string]string{"a.yaml": cm("a"), "d.yaml": deploy("stuck"), "n.yaml": cm("new")})

	t.Run("wait timeout fails the revision", func(t *testing.T) {
		h := newHarness()
		h.stuck()
		req := InstallRequest{ReleaseSpec: spec(bad, nil)}
		req.Wait, req.Timeout = true, 50*time.Millisecond
		_, err := h.l.Install(ctx, req)
		var nre *ports.NotReadyError
		if !errors.As(err, &nre) {
			t.Fatalf("err = %v", err)
		}
		if got := h.statuses(t, "web"); fmt.Sprint(got) != "[failed]" {
			t.Errorf("history = %v", got)
		}
	})
	t.Run("atomic install uninstalls", func(t *testing.T) {
		h := newHarness()
		h.stuck()
		req := InstallRequest{ReleaseSpec: spec(bad, nil)}
		req.Atomic, req.Wait, req.Timeout = true, true, 50*time.Millisecond
		_, err := h.l.Install(ctx, req)
		if err == nil || !strings.Contains(err.Error(), "has been uninstalled due to atomic being set") {
			t.Fatalf("err = %v", err)
		}
		if got := h.names("ConfigMap"); len(got) != 0 {
			t.Errorf("objects left = %v", got)
		}
	})
	t.Run("atomic upgrade rolls back", func(t *testing.T) {
		h := newHarness()
		if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(good, nil)}); err != nil {
			t.Fatal(err)
		}
		h.stuck()
		req := UpgradeRequest{ReleaseSpec: spec(bad, nil)}
		req.Atomic, req.Wait, req.Timeout = true, true, 50*time.Millisecond
		_, err := h.l.Upgrade(ctx, req)
		if err == nil || !strings.Contains(err.Error(), "has been rolled back due to atomic being set") {
			t.Fatalf("err = %v", err)
		}
		if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded failed deployed]" {
			t.Errorf("history = %v", got)
		}
		if got := h.names("Deployment"); fmt.Sprint(got) != "[web]" {
			t.Errorf("deployments = %v", got)
		}
		if got := h.names("ConfigMap"); fmt.Sprint(got) != "[a]" {
			t.Errorf("config maps = %v", got)
		}
	})
	t.Run("failing pre-install hook", func(t *testing.T) {
		h := newHarness()
		h.c.SetState(memcluster.Selector{Kind: "Job", Name: "migrate"}, memcluster.Failed, "job failed")
		ch := demoChart(map[string]string{"a.yaml": cm("a"), "hook.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-delete-policy: hook-failed\n"})
		_, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)})
		if err == nil || !strings.Contains(err.Error(), "pre-install hook demo/templates/hook.yaml failed") {
			t.Fatalf("err = %v", err)
		}
		if got := h.names("ConfigMap"); len(got) != 0 {
			t.Errorf("resources applied after a failed pre-install hook: %v", got)
		}
		if got := h.names("Job"); len(got) != 0 {
			t.Errorf("hook-failed policy left %v", got)
		}
		if got := h.statuses(t, "web"); fmt.Sprint(got) != "[failed]" {
			t.Errorf("history = %v", got)
		}
	})
	t.Run("locked", func(t *testing.T) {
		h := newHarness()
		h.locker.held = true
		_, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(good, nil), Install: true})
		if !errors.Is(err, ports.ErrLocked) || !strings.Contains(err.Error(), "other@") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("interrupted upgrade recovered", func(t *testing.T) {
		h := newHarness()
		if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(good, nil)}); err != nil {
			t.Fatal(err)
		}
		stuck := &release.Release{Name: "web", Namespace: ns, Version: 2, Chart: good, Info: &release.Info{Status: release.StatusPendingUpgrade}}
		if err := h.store.Create(ctx, stuck); err != nil {
			t.Fatal(err)
		}
		h.locker.recovered = true
		if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(good, nil)}); err != nil {
			t.Fatal(err)
		}
		if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded failed deployed]" {
			t.Errorf("history = %v", got)
		}
		var recovered int
		for _, e := range h.events {
			if e.Type == EventRecovered {
				recovered++
			}
		}
		if recovered != 2 {
			t.Errorf("recovered events = %d, want 2 (lock and revision)", recovered)
		}
	})
	t.Run("lost lock stops the operation", func(t *testing.T) {
		h := newHarness()
		if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(good, nil)}); err != nil {
			t.Fatal(err)
		}
		h.stuck()
		h.locker.lost = make(chan struct{})
		h.onStuckWait(func() { close(h.locker.lost) })
		req := UpgradeRequest{ReleaseSpec: spec(bad, nil)}
		req.Wait = true
		if _, err := h.l.Upgrade(ctx, req); err == nil {
			t.Fatal("no error")
		}
		if got := h.statuses(t, "web"); fmt.Sprint(got) != "[deployed failed]" {
			t.Errorf("history = %v", got)
		}
	})
	t.Run("cancelled upgrade recorded failed", func(t *testing.T) {
		h := newHarness()
		if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(good, nil)}); err != nil {
			t.Fatal(err)
		}
		h.stuck()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		h.onStuckWait(cancel)
		req := UpgradeRequest{ReleaseSpec: spec(bad, nil)}
		req.Wait = true
		if _, err := h.l.Upgrade(cctx, req); err == nil {
			t.Fatal("no error")
		}
		if got := h.statuses(t, "web"); fmt.Sprint(got) != "[deployed failed]" {
			t.Errorf("history = %v", got)
		}
		if h.locker.held {
			t.Error("lock still held")
		}
	})
}

func TestHooksOrderAndPolicies(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	hook := func(name, weight, policy string) string {
		return fmt.Sprintf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: %q\n    helm.sh/hook-delete-policy: %s\n", name, weight, policy)
	}
	ch := demoChart(map[string]string{"a.yaml": cm("a"), "h1.yaml": hook("second", "5", "hook-succeeded"), "h2.yaml": hook("first", "-1", "before-hook-creation")})
	rel, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range h.writes() {
		if !strings.HasPrefix(line, "delete ") {
			order = append(order, line)
		}
	}
	// Helm 3 creates hooks (the release's dialect: no apply method).
	if fmt.Sprint(order) != "[apply ConfigMap apps/a create Job apps/first create Job apps/second]" {
		t.Errorf("write order = %v", order)
	}
	if got := h.names("Job"); fmt.Sprint(got) != "[first]" {
		t.Errorf("jobs left = %v, want the one without hook-succeeded", got)
	}
	for _, hk := range rel.Hooks {
		if hk.LastRun.Phase != release.HookPhaseSucceeded {
			t.Errorf("hook %s phase %s", hk.Name, hk.LastRun.Phase)
		}
	}
}

// A hook run without a delete policy records the default, as both Helms do.
func TestHookDefaultPolicyRecorded(t *testing.T) {
	h := newHarness()
	hook := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pre\n  annotations:\n    helm.sh/hook: pre-install\n"
	rel, err := h.l.Install(context.Background(), InstallRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": cm("a"), "h.yaml": hook}), nil)})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rel.Hooks[0].DeletePolicies); got != "[before-hook-creation]" {
		t.Errorf("delete policies = %s, want [before-hook-creation]", got)
	}
}

func TestKeepPolicyAndHistoryMax(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	kept := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  annotations:\n    helm.sh/resource-policy: keep\n"
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": cm("a"), "k.yaml": kept}), nil)}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		req := UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": cm("a")}), map[string]any{"size": i}), HistoryMax: 2}
		if _, err := h.l.Upgrade(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.names("ConfigMap"); fmt.Sprint(got) != "[a kept]" {
		t.Errorf("config maps = %v", got)
	}
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded deployed]" {
		t.Errorf("history = %v", got)
	}
}

func TestUpgradeValues(t *testing.T) {
	current := &release.Release{Config: map[string]any{"a": 1, "b": 1}, Chart: &chart.Chart{Values: map[string]any{"old": true}}}
	tests := map[string]struct {
		req       UpgradeRequest
		want      string
		wantChart string
	}{
		"no values reuses":   {want: "map[a:1 b:1]", wantChart: "map[new:true]"},
		"new values replace": {req: UpgradeRequest{ReleaseSpec: ReleaseSpec{Values: map[string]any{"b": 2}}}, want: "map[b:2]", wantChart: "map[new:true]"},
		"reset":              {req: UpgradeRequest{ResetValues: true}, want: "map[]", wantChart: "map[new:true]"},
		"reuse":              {req: UpgradeRequest{ReuseValues: true, ReleaseSpec: ReleaseSpec{Values: map[string]any{"b": 2}}}, want: "map[a:1 b:2]", wantChart: "map[a:1 b:1 old:true]"},
		"reset then reuse":   {req: UpgradeRequest{ResetThenReuseValues: true, ReleaseSpec: ReleaseSpec{Values: map[string]any{"b": 2}}}, want: "map[a:1 b:2]", wantChart: "map[new:true]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ch := &chart.Chart{Values: map[string]any{"new": true}}
			got, err := upgradeValues(tc.req, ch, current)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want && (tc.want != "map[]" || len(got) != 0) {
				t.Errorf("values = %v, want %s", got, tc.want)
			}
			if fmt.Sprint(ch.Values) != tc.wantChart {
				t.Errorf("chart values = %v, want %s", ch.Values, tc.wantChart)
			}
		})
	}
}

// With --reuse-values the previous computed values are the defaults: a key
// the previous config deleted with null stays deleted (Helm v3.22 computes
// {"extra":{"a":null}} for this sequence).
func TestUpgradeReuseValuesAfterNull(t *testing.T) {
	current := &release.Release{
		Config: map[string]any{"extra": nil},
		Chart:  &chart.Chart{Values: map[string]any{"extra": map[string]any{"a": 1, "b": []any{1, 2}}, "keep": true}},
	}
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c", Version: "1.0.0"}, Values: map[string]any{"extra": map[string]any{"a": 1, "b": []any{1, 2}}, "keep": true}}
	user, err := upgradeValues(UpgradeRequest{ReuseValues: true, ReleaseSpec: ReleaseSpec{Values: map[string]any{"extra": map[string]any{"a": nil}}}}, ch, current)
	if err != nil {
		t.Fatal(err)
	}
	computed, err := values.CoalesceFor(dialect.Helm3, ch, user, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(map[string]any(computed)); got != "map[extra:map[a:<nil>] keep:true]" {
		t.Errorf("computed values = %s", got)
	}
}

func TestSubset(t *testing.T) {
	tests := map[string]struct {
		want, have any
		ok         bool
	}{
		"equal":              {map[string]any{"a": "x"}, map[string]any{"a": "x"}, true},
		"server defaults":    {map[string]any{"a": "x"}, map[string]any{"a": "x", "b": "y"}, true},
		"changed":            {map[string]any{"a": "x"}, map[string]any{"a": "z"}, false},
		"missing":            {map[string]any{"a": "x"}, map[string]any{}, false},
		"numbers":            {map[string]any{"n": int64(2)}, map[string]any{"n": float64(2)}, true},
		"list element":       {[]any{map[string]any{"p": 80}}, []any{map[string]any{"p": int64(80), "protocol": "TCP"}}, true},
		"list length":        {[]any{"a"}, []any{"a", "b"}, false},
		"string vs number":   {map[string]any{"n": "2"}, map[string]any{"n": int64(2)}, false},
		"null needs no live": {map[string]any{"n": nil}, map[string]any{"n": "x"}, false},
		"zero values left out by the server": {
			map[string]any{"hostNetwork": false, "delay": 0, "headers": nil, "name": ""}, map[string]any{}, true,
		},
		"zero value replaced": {map[string]any{"hostNetwork": false}, map[string]any{"hostNetwork": true}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := subset(tc.want, tc.have); got != tc.ok {
				t.Errorf("subset = %v, want %v", got, tc.ok)
			}
		})
	}
}

// Dropping a field from an object is a change even though the live object
// still holds every field the chart sets.
func TestUpgradeRemovesAField(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	with := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n  y: \"2\"\n"
	without := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n"
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": with}), nil)}); err != nil {
		t.Fatal(err)
	}
	h.c.ResetCalls()
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": without}), nil)}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.writes()) != "[apply ConfigMap apps/a]" {
		t.Errorf("cluster calls = %v, want the config map applied", h.writes())
	}
	h.c.ResetCalls()
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"a.yaml": without}), nil)}); err != nil {
		t.Fatal(err)
	}
	if len(h.writes()) != 0 {
		t.Errorf("a no-change upgrade wrote %v", h.writes())
	}
}

// Objects go in tiers: what workloads use, then the workloads, then what
// changes how the server admits or serves objects and custom resources, one
// kind at a time in Helm's order.
func TestApplyTiers(t *testing.T) {
	h := newHarness(memcluster.WithKind("cert-manager.io/v1", "Certificate", true))
	doc := func(apiVersion, kind, name string) string {
		return fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n", apiVersion, kind, name)
	}
	ch := demoChart(map[string]string{
		"hook.yaml":    doc("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "checks"),
		"cert.yaml":    doc("cert-manager.io/v1", "Certificate", "tls"),
		"api.yaml":     doc("apiregistration.k8s.io/v1", "APIService", "v1.metrics"),
		"deploy.yaml":  doc("apps/v1", "Deployment", "web"),
		"svc.yaml":     doc("v1", "Service", "web"),
		"config.yaml":  cm("config"),
		"ingress.yaml": doc("networking.k8s.io/v1", "Ingress", "web"),
	})
	if _, err := h.l.Install(context.Background(), InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, c := range h.c.Calls(memcluster.VerbApply) {
		if !c.DryRun {
			at[c.Ref.Kind] = i
		}
	}
	for _, pair := range [][2]string{
		{"ConfigMap", "Deployment"}, {"Service", "Deployment"}, {"ConfigMap", "Ingress"},
		{"Deployment", "APIService"}, {"Ingress", "APIService"}, {"APIService", "Certificate"},
		{"Certificate", "ValidatingWebhookConfiguration"},
	} {
		if at[pair[0]] >= at[pair[1]] {
			t.Errorf("%s applied after %s: %v", pair[0], pair[1], h.writes())
		}
	}
}

// An install creates every object the cluster takes, and fails with the
// refusal after, as both Helms' creates do.
func TestInstallCreatesWhatTheClusterTakes(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	// The server refuses the change of a: an immutable ConfigMap's data.
	immutable := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": ns},
		"immutable": true, "data": map[string]any{"size": "9"}}
	if _, err := h.c.Apply(ctx, immutable, ports.ApplyOptions{FieldManager: "kubectl"}); err != nil {
		t.Fatal(err)
	}
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"
	s := spec(demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b"), "d.yaml": deploy}), nil)
	s.TakeOwnership, s.ForceConflicts = true, true
	_, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: s})
	var refused *ports.ApplyError
	if !errors.As(err, &refused) || refused.Ref.Name != "a" {
		t.Fatalf("install = %v, want the refusal of a", err)
	}
	if got := fmt.Sprint(h.names("ConfigMap"), h.names("Deployment")); got != "[a b] [d]" {
		t.Errorf("objects: %s, want [a b] [d] (a as it was)", got)
	}
}
