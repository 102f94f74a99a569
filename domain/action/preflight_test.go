package action

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// secretStore is the memory store standing for the Secret store: its records
// are Secrets, for the preflight.
type secretStore struct{ *memory.Store }

func (secretStore) BackingResource() (string, string, bool) { return "", "secrets", true }

// leaseLocker is a locker standing for Leases, counting acquisitions.
type leaseLocker struct {
	fakeLocker
	mu       sync.Mutex
	acquired int
}

func (l *leaseLocker) Acquire(ctx context.Context, ns, name string, h ports.LockHolder) (ports.Lock, error) {
	l.mu.Lock()
	l.acquired++
	l.mu.Unlock()
	return l.fakeLocker.Acquire(ctx, ns, name, h)
}

func (*leaseLocker) BackingResource() (string, string, bool) {
	return "coordination.k8s.io", "leases", true
}

type preflightHarness struct {
	cluster *memcluster.Cluster
	store   secretStore
	locker  *leaseLocker
	l       *Lifecycle
}

func newPreflightHarness() *preflightHarness {
	h := &preflightHarness{cluster: memcluster.New(memcluster.WithNamespaces(ns)), store: secretStore{memory.New()}, locker: &leaseLocker{}}
	h.l = &Lifecycle{Cluster: h.cluster, Store: h.store, Locker: h.locker, Clock: fixedClock{}}
	return h
}

// grant is a rule: verbs on a resource in the test namespace.
func grant(group, resource string, verbs ...string) []ports.Access {
	out := make([]ports.Access, len(verbs))
	for i, v := range verbs {
		out[i] = ports.Access{Verb: v, Group: group, Resource: resource, Namespace: ns}
	}
	return out
}

var (
	allVerbs = []string{"get", "list", "watch", "create", "patch", "update", "delete"}
	// records and lock: what every operation needs besides its objects.
	recordsAndLock = append(grant("", "secrets", allVerbs...), grant("coordination.k8s.io", "leases", allVerbs...)...)
)

func rules(sets ...[]ports.Access) []ports.Access {
	var out []ports.Access
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}

func missing(t *testing.T, err error) []string {
	t.Helper()
	var pe *plan.PermissionsError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want missing permissions", err)
	}
	if !errors.Is(err, plan.ErrForbidden) {
		t.Errorf("errors.Is(%v, ErrForbidden) = false", err)
	}
	return pe.Missing
}

const crdFile = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.test
spec:
  group: example.test
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

const hookJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`

// An operation lacking permissions is refused before anything is written:
// no object, no release record, no lock; the error lists every missing
// permission as verb resource in namespace.
func TestPreflightInstall(t *testing.T) {
	ctx := context.Background()
	objects := demoChart(map[string]string{"a.yaml": cm("a"), "d.yaml": deploy("web")})
	tests := map[string]struct {
		chart   map[string]string
		allow   []ports.Access
		wait    bool
		atomic  bool
		missing []string
	}{
		"may not read deployments: what planning needs and what is known to be needed": {
			allow: rules(recordsAndLock, grant("", "configmaps", allVerbs...)),
			missing: []string{
				"list deployments.apps in namespace apps", "create deployments.apps in namespace apps", "patch deployments.apps in namespace apps",
			},
		},
		"may read but not create deployments": {
			allow:   rules(recordsAndLock, grant("", "configmaps", allVerbs...), grant("apps", "deployments", "get", "list", "watch", "patch")),
			missing: []string{"create deployments.apps in namespace apps"},
		},
		"waiting needs watching": {
			allow: rules(recordsAndLock, grant("", "configmaps", allVerbs...), grant("apps", "deployments", "list", "create", "patch")),
			wait:  true, missing: []string{"watch deployments.apps in namespace apps"},
		},
		"--atomic needs deleting what it created": {
			allow:  rules(recordsAndLock, grant("", "configmaps", "list", "create", "patch", "watch"), grant("apps", "deployments", "list", "create", "patch", "watch")),
			atomic: true,
			missing: []string{
				"delete configmaps in namespace apps", "delete deployments.apps in namespace apps",
			},
		},
		"the release records and the lock": {
			allow: rules(grant("", "configmaps", allVerbs...), grant("apps", "deployments", allVerbs...), grant("", "secrets", "get", "list")),
			missing: []string{
				"get leases.coordination.k8s.io in namespace apps", "create leases.coordination.k8s.io in namespace apps",
				"update leases.coordination.k8s.io in namespace apps", "delete leases.coordination.k8s.io in namespace apps",
				"create secrets in namespace apps", "update secrets in namespace apps",
			},
		},
		"hooks: their objects are written, watched and deleted": {
			chart: map[string]string{"a.yaml": cm("a"), "job.yaml": hookJob},
			allow: rules(recordsAndLock, grant("", "configmaps", allVerbs...), grant("batch", "jobs", "create", "patch")),
			missing: []string{
				"list jobs.batch in namespace apps", "watch jobs.batch in namespace apps", "delete jobs.batch in namespace apps",
			},
		},
		"custom resources of the chart's CRDs, by their plural": {
			chart: map[string]string{"crds/crd.yaml": crdFile, "w.yaml": "apiVersion: example.test/v1\nkind: Widget\nmetadata:\n  name: w\n"},
			allow: rules(recordsAndLock, []ports.Access{{Verb: "*", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}}),
			missing: []string{
				"create widgets.example.test in namespace apps", "patch widgets.example.test in namespace apps",
			},
		},
		"CRDs are cluster-scoped": {
			chart: map[string]string{"crds/crd.yaml": crdFile, "a.yaml": cm("a")},
			allow: rules(recordsAndLock, grant("", "configmaps", allVerbs...), []ports.Access{{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}}),
			missing: []string{
				"list customresourcedefinitions.apiextensions.k8s.io (cluster-wide)",
				"watch customresourcedefinitions.apiextensions.k8s.io (cluster-wide)",
				"create customresourcedefinitions.apiextensions.k8s.io (cluster-wide)",
			},
		},
		"everything allowed": {
			allow: rules(recordsAndLock, grant("", "configmaps", allVerbs...), grant("apps", "deployments", allVerbs...)),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newPreflightHarness()
			h.cluster.Restrict(tc.allow...)
			ch := objects
			if tc.chart != nil {
				ch = demoChart(tc.chart)
			}
			s := spec(ch, nil)
			s.Wait, s.Atomic = tc.wait, tc.atomic
			_, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: s})
			if tc.missing == nil {
				if err != nil {
					t.Fatalf("install: %v", err)
				}
				return
			}
			if got := missing(t, err); strings.Join(got, "\n") != strings.Join(tc.missing, "\n") {
				t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.missing, "\n"))
			}
			if !strings.Contains(err.Error(), "nothing was changed: "+strings.Join(tc.missing, "; ")) {
				t.Errorf("error = %v", err)
			}
			if calls := h.cluster.Calls(memcluster.VerbApply, memcluster.VerbDelete); len(calls) != 0 {
				t.Errorf("the cluster was written: %v", calls)
			}
			if _, err := h.store.History(ctx, ns, "web"); !errors.Is(err, ports.ErrReleaseNotFound) {
				t.Errorf("a release record was written: %v", err)
			}
			if h.locker.acquired != 0 {
				t.Errorf("the lock was taken %d time(s)", h.locker.acquired)
			}
		})
	}
}

// Upgrades, rollbacks and uninstalls need what they change: patch of what the
// revision keeps, delete of what it drops; --skip-preflight goes ahead.
func TestPreflightChanges(t *testing.T) {
	ctx := context.Background()
	v1 := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b"), "d.yaml": deploy("web")})
	v2 := demoChart(map[string]string{"a.yaml": cm("a"), "d.yaml": deploy("web")})
	reader := rules(recordsAndLock, grant("", "configmaps", "get", "list", "watch", "patch"), grant("apps", "deployments", "get", "list", "watch", "patch"))
	tests := map[string]struct {
		// setup runs before the operation, with every permission.
		setup   func(l *Lifecycle) error
		allow   []ports.Access
		run     func(l *Lifecycle) error
		skip    bool
		missing []string
	}{
		"upgrade dropping an object": {
			run: func(l *Lifecycle) error {
				_, err := l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, map[string]any{"size": 2})})
				return err
			},
			missing: []string{"delete configmaps in namespace apps"},
		},
		"upgrade with --skip-preflight": {
			run: func(l *Lifecycle) error {
				_, err := l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, map[string]any{"size": 2})})
				return err
			},
			skip: true,
		},
		"upgrade keeping every object": {
			run: func(l *Lifecycle) error {
				_, err := l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v1, map[string]any{"size": 2})})
				return err
			},
		},
		"uninstall": {
			run: func(l *Lifecycle) error {
				_, err := l.Uninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns})
				return err
			},
			missing: []string{"delete configmaps in namespace apps", "delete deployments.apps in namespace apps"},
		},
		"rollback to a revision with an object the latest lacks": {
			setup: func(l *Lifecycle) error {
				_, err := l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, nil)})
				return err
			},
			allow: rules(recordsAndLock, grant("", "configmaps", "list", "patch"), grant("apps", "deployments", "list", "patch")),
			run: func(l *Lifecycle) error {
				_, err := l.Rollback(ctx, RollbackRequest{ReleaseName: "web", Namespace: ns, Revision: 1})
				return err
			},
			missing: []string{"create configmaps in namespace apps"},
		},
		"saved plans are checked before they are executed": {
			run: func(l *Lifecycle) error {
				l.Cluster.(*memcluster.Cluster).Unrestrict()
				pl, err := l.PreviewUpgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, nil)})
				if err != nil {
					return err
				}
				l.Cluster.(*memcluster.Cluster).Restrict(reader...)
				_, err = l.ExecuteSaved(ctx, SavedPlanRequest{Plan: pl, Command: plan.OpUpgrade, ReleaseName: "web", Namespace: ns})
				return err
			},
			missing: []string{"delete configmaps in namespace apps"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newPreflightHarness()
			if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(v1, nil)}); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				if err := tc.setup(h.l); err != nil {
					t.Fatal(err)
				}
			}
			if tc.allow == nil {
				tc.allow = reader
			}
			h.cluster.Restrict(tc.allow...)
			h.l.SkipPreflight = tc.skip
			h.cluster.ResetCalls()
			h.locker.acquired = 0
			before, _ := h.store.History(ctx, ns, "web")
			err := tc.run(h.l)
			if tc.missing == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := missing(t, err); strings.Join(got, "\n") != strings.Join(tc.missing, "\n") {
				t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.missing, "\n"))
			}
			after, _ := h.store.History(ctx, ns, "web")
			if len(after) != len(before) || after.Latest().Info.Status != before.Latest().Info.Status {
				t.Errorf("history changed: %d revisions, latest %s", len(after), after.Latest().Info.Status)
			}
			if calls := h.cluster.Calls(memcluster.VerbApply, memcluster.VerbDelete); len(calls) != 0 {
				t.Errorf("the cluster was written: %v", calls)
			}
			if h.locker.acquired != 0 {
				t.Errorf("the lock was taken")
			}
		})
	}
}

// Previews report the same: --dry-run=server fails with the operation's
// error, diff's plan carries each missing permission as a problem.
func TestPreflightPreviews(t *testing.T) {
	ctx := context.Background()
	h := newPreflightHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a"), "d.yaml": deploy("web")})
	allow := rules(recordsAndLock, grant("", "configmaps", allVerbs...), grant("apps", "deployments", "list", "patch"))
	h.cluster.Restrict(allow...)
	_, opErr := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)})
	s := spec(ch, nil)
	s.DryRun = DryRunServer
	var shown *plan.Plan
	s.OnPlan = func(p *plan.Plan) { shown = p }
	_, dryErr := h.l.Install(ctx, InstallRequest{ReleaseSpec: s})
	if opErr == nil || dryErr == nil || opErr.Error() != dryErr.Error() {
		t.Errorf("install: %v\n--dry-run=server: %v", opErr, dryErr)
	}
	if shown == nil || len(shown.Problems) != 1 || shown.Problems[0].Type != plan.ProblemForbidden ||
		shown.Problems[0].Message != "create deployments.apps in namespace apps" {
		t.Errorf("dry run's plan problems: %+v", shown)
	}
	pl, err := h.l.PreviewInstall(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Err(); err == nil || err.Error() != opErr.Error() {
		t.Errorf("diff's plan: %v", err)
	}
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if s.Result != nil {
				t.Errorf("%s was dry-run although permissions are missing", s.Ref)
			}
		}
	}
	if calls := h.cluster.Calls(memcluster.VerbApply); len(calls) != 0 {
		t.Errorf("previews applied: %v", calls)
	}
}

// With permissions, the plan made before the lock is the one executed: one
// render, one read of the live objects.
func TestPreflightPlansOnce(t *testing.T) {
	ctx := context.Background()
	h := newPreflightHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a"), "d.yaml": deploy("web")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	h.cluster.ResetCalls()
	if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, map[string]any{"size": 3})}); err != nil {
		t.Fatal(err)
	}
	lists := 0
	for _, c := range h.cluster.Calls(memcluster.VerbList) {
		if c.Ref.Kind == "ConfigMap" {
			lists++
		}
	}
	if lists != 1 || h.locker.acquired != 2 {
		t.Errorf("config maps listed %d time(s), lock taken %d time(s)", lists, h.locker.acquired)
	}
	hist, _ := h.store.History(ctx, ns, "web")
	if latest := hist.Latest(); latest.Version != 2 || latest.Info.Status != release.StatusDeployed {
		t.Errorf("latest = %d %s", latest.Version, latest.Info.Status)
	}
}
