package porttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// clusterTimeout bounds each test of the cluster suite: on a real control
// plane Deployments become available and garbage is collected in seconds.
const clusterTimeout = 2 * time.Minute

// ClusterFixture is the cluster one test of the suite works on.
type ClusterFixture struct {
	Cluster ports.Cluster
	// Namespace exists and is this test's alone. Cluster-scoped objects the
	// suite makes are named after it and deleted by the suite.
	Namespace string
	// Others writes as other field managers; nil skips the tests that need it.
	Others OtherManagers
	// Restricted is the same cluster as a caller allowed only the given
	// permissions (each a verb, a resource by Group and Resource, and
	// Namespace, the fixture's); nil skips the tests that need it.
	Restricted func(t *testing.T, allow []ports.Access) ports.Cluster
}

// NewCluster returns the fixture for one test; over a shared cluster, a fresh
// namespace each time.
type NewCluster func(t *testing.T) ClusterFixture

// OtherManagers writes as field managers other than the adapter's own: what
// kubectl apply --server-side, kubectl edit or scale, Helm's client-side
// writes and controllers do beside the adapter's applies. The suite needs it for
// conflicts, take-overs and finalizers.
type OtherManagers interface {
	// ApplyAs server-side applies obj as manager; only opts.ForceConflicts
	// need be honoured.
	ApplyAs(ctx context.Context, manager string, obj ports.Object, opts ports.ApplyOptions) (ports.Object, error)
	// UpdateAs writes obj whole as manager with a create, or an update of the
	// live object (not an apply).
	UpdateAs(ctx context.Context, manager string, obj ports.Object) (ports.Object, error)
}

// Cluster runs the contract every ports.Cluster adapter must meet: what the
// lifecycle use cases rely on.
func Cluster(t *testing.T, newCluster NewCluster) {
	tests := map[string]func(t *testing.T, ctx context.Context, f ClusterFixture){
		"apply creates, then updates in place":                  testClusterApplyCreateUpdate,
		"create makes an object once":                           testClusterCreate,
		"create of an object being deleted is refused":          testClusterCreateDeleting,
		"replace writes the object whole":                       testClusterReplace,
		"a no-change apply keeps the resource version":          testClusterApplyNoChange,
		"apply owns the fields as helm, or the manager named":   testClusterApplyManager,
		"take over what a manager of another name applied":      testClusterTakeOverApplied,
		"take over as a manager of one's choosing":              testClusterTakeOverChosen,
		"dry run returns the would-be object and persists none": testClusterDryRun,
		"missing objects are not found":                         testClusterNotFound,
		"kinds the cluster does not serve are refused":          testClusterUnknownKind,
		"namespaced answers from the kind's scope":              testClusterNamespaced,
		"list selects by namespace and labels":                  testClusterListSelector,
		"list of a cluster-scoped kind":                         testClusterListClusterScoped,
		"apply into a missing namespace fails":                  testClusterMissingNamespace,
		"delete, then wait for deletion":                        testClusterDelete,
		"delete propagates to dependents":                       testClusterPropagation,
		"a field dropped from the applied object is removed":    testClusterDroppedField,
		"a dropped field another manager owns stays":            testClusterDroppedShared,
		"another manager's applied field conflicts":             testClusterConflictApply,
		"another manager's updated field conflicts":             testClusterConflictUpdate,
		"take over from the named managers only":                testClusterTakeOverNamed,
		"list items are owned by their key":                     testClusterListItems,
		"generation counts changes of the spec":                 testClusterGeneration,
		"take over fields written with updates":                 testClusterTakeOverUpdates,
		"changes of immutable fields are invalid":               testClusterImmutable,
		"wait for objects that become ready":                    testClusterWaitReady,
		"wait for an object that is not ready ends with ctx":    testClusterWaitNotReady,
		"wait for deletion waits for finalizers":                testClusterWaitFinalizers,
		"install CRDs serves their kinds":                       testClusterInstallCRDs,
		"install CRDs leaves existing ones alone":               testClusterInstallCRDsExisting,
		"capabilities list the served API versions":             testClusterCapabilities,
		"concurrent applies all land":                           testClusterConcurrent,
		"access reviews name what the caller may not do":        testClusterReviewAccess,
		"an upgraded CRD keeps its stored versions":             testClusterUpgradeCRD,
		"readiness checks decide what they name":                testClusterWaitChecks,
		"tables and lists of live objects":                      testClusterReads,
	}
	names := make([]string, 0, len(tests))
	for name := range tests {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f := newCluster(t)
			ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
			defer cancel()
			tests[name](t, ctx, f)
		})
	}
}

// clusterObject decodes a JSON object, with %s replaced by args.
func clusterObject(t *testing.T, format string, args ...any) ports.Object {
	t.Helper()
	var o ports.Object
	if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &o); err != nil {
		t.Fatalf("object %s: %v", format, err)
	}
	return o
}

func configMap(t *testing.T, ns, name, data string) ports.Object {
	t.Helper()
	return clusterObject(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q},"data":%s}`, name, ns, data)
}

func mustApply(t *testing.T, ctx context.Context, c ports.Cluster, o ports.Object, opts ports.ApplyOptions) ports.Object {
	t.Helper()
	live, err := c.Apply(ctx, o, opts)
	if err != nil {
		t.Fatalf("Apply(%s): %v", ports.RefOf(o), err)
	}
	return live
}

func mustGet(t *testing.T, ctx context.Context, c ports.Cluster, ref ports.ObjectRef) ports.Object {
	t.Helper()
	live, err := c.Get(ctx, ref)
	if err != nil {
		t.Fatalf("Get(%s): %v", ref, err)
	}
	return live
}

func needOthers(t *testing.T, f ClusterFixture) OtherManagers {
	t.Helper()
	if f.Others == nil {
		t.Skip("the adapter cannot write as other field managers")
	}
	return f.Others
}

// field reads a nested field as a string (numbers too, as JSON writes them).
func field(o ports.Object, keys ...string) string {
	var cur any = map[string]any(o)
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[k]
	}
	switch v := cur.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func dataOf(o ports.Object) map[string]string {
	out := map[string]string{}
	if m, ok := o["data"].(map[string]any); ok {
		for k, v := range m {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

func assertData(t *testing.T, o ports.Object, want map[string]string) {
	t.Helper()
	if got := dataOf(o); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s data = %v, want %v", ports.RefOf(o), got, want)
	}
}

func rv(o ports.Object) string { return field(o, "metadata", "resourceVersion") }

func testClusterApplyCreateUpdate(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	created := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"size":"1"}`), ports.ApplyOptions{})
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if field(created, "metadata", k) == "" {
			t.Errorf("created object has no metadata.%s: %v", k, created)
		}
	}
	if created.GetName() != "web" || created.GetNamespace() != f.Namespace || created.GetKind() != "ConfigMap" {
		t.Errorf("created object is %s", ports.RefOf(created))
	}
	assertData(t, created, map[string]string{"size": "1"})
	got := mustGet(t, ctx, c, ports.RefOf(created))
	if field(got, "metadata", "uid") != field(created, "metadata", "uid") || rv(got) != rv(created) {
		t.Errorf("get returned uid %s rv %s, apply %s %s", field(got, "metadata", "uid"), rv(got), field(created, "metadata", "uid"), rv(created))
	}
	updated := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"size":"2"}`), ports.ApplyOptions{})
	if field(updated, "metadata", "uid") != field(created, "metadata", "uid") {
		t.Error("an update changed the uid")
	}
	if rv(updated) == rv(created) {
		t.Errorf("an update kept resourceVersion %s", rv(updated))
	}
	assertData(t, updated, map[string]string{"size": "2"})
	if got := mustGet(t, ctx, c, ports.RefOf(created)); rv(got) != rv(updated) {
		t.Errorf("get rv %s, apply returned %s", rv(got), rv(updated))
	}
}

func testClusterApplyNoChange(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	o := configMap(t, f.Namespace, "web", `{"size":"1"}`)
	o.SetLabels(map[string]string{"app": "web"})
	first := mustApply(t, ctx, c, o, ports.ApplyOptions{})
	again := mustApply(t, ctx, c, o, ports.ApplyOptions{})
	if rv(again) != rv(first) {
		t.Errorf("a no-change apply moved resourceVersion %s to %s", rv(first), rv(again))
	}
}

func testClusterDryRun(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	o := configMap(t, f.Namespace, "web", `{"size":"1"}`)
	would, err := c.Apply(ctx, o, ports.ApplyOptions{DryRun: true})
	if err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	assertData(t, would, map[string]string{"size": "1"})
	if would.GetName() != "web" {
		t.Errorf("dry-run create returned %s", ports.RefOf(would))
	}
	if _, err := c.Get(ctx, ports.RefOf(o)); !errors.Is(err, ports.ErrObjectNotFound) {
		t.Fatalf("after a dry-run create, get = %v, want not found", err)
	}
	live := mustApply(t, ctx, c, o, ports.ApplyOptions{})
	would, err = c.Apply(ctx, configMap(t, f.Namespace, "web", `{"size":"2"}`), ports.ApplyOptions{DryRun: true})
	if err != nil {
		t.Fatalf("dry-run update: %v", err)
	}
	assertData(t, would, map[string]string{"size": "2"})
	got := mustGet(t, ctx, c, ports.RefOf(o))
	assertData(t, got, map[string]string{"size": "1"})
	if rv(got) != rv(live) {
		t.Errorf("a dry-run update moved resourceVersion %s to %s", rv(live), rv(got))
	}
}

func testClusterNotFound(t *testing.T, ctx context.Context, f ClusterFixture) {
	refs := map[string]ports.ObjectRef{
		"namespaced":     {APIVersion: "v1", Kind: "ConfigMap", Namespace: f.Namespace, Name: "missing"},
		"cluster-scoped": {APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: f.Namespace + "-missing"},
	}
	for name, ref := range refs {
		t.Run(name, func(t *testing.T) {
			if _, err := f.Cluster.Get(ctx, ref); !errors.Is(err, ports.ErrObjectNotFound) {
				t.Errorf("Get = %v, want ErrObjectNotFound", err)
			}
			if err := f.Cluster.Delete(ctx, ref, ports.PropagationBackground); !errors.Is(err, ports.ErrObjectNotFound) {
				t.Errorf("Delete = %v, want ErrObjectNotFound", err)
			}
		})
	}
	for _, container := range []string{"", "c"} {
		if err := f.Cluster.PodLogs(ctx, f.Namespace, "missing", container, io.Discard); !errors.Is(err, ports.ErrObjectNotFound) {
			t.Errorf("PodLogs of a missing pod, container %q = %v, want ErrObjectNotFound", container, err)
		}
	}
}

func testClusterUnknownKind(t *testing.T, ctx context.Context, f ClusterFixture) {
	kinds := map[string][2]string{
		"unknown group":         {"porttest.invalid/v1", "Nope"},
		"unserved version":      {"apps/v1beta1", "Deployment"},
		"kind not in its group": {"v1", "Deployment"},
	}
	for name, k := range kinds {
		t.Run(name, func(t *testing.T) {
			c := f.Cluster
			ref := ports.ObjectRef{APIVersion: k[0], Kind: k[1], Namespace: f.Namespace, Name: "x"}
			if _, err := c.Namespaced(ctx, k[0], k[1]); !errors.Is(err, ports.ErrUnknownKind) {
				t.Errorf("Namespaced = %v, want ErrUnknownKind", err)
			}
			if _, err := c.Get(ctx, ref); !errors.Is(err, ports.ErrUnknownKind) {
				t.Errorf("Get = %v, want ErrUnknownKind", err)
			}
			if _, err := c.List(ctx, k[0], k[1], f.Namespace, ""); !errors.Is(err, ports.ErrUnknownKind) {
				t.Errorf("List = %v, want ErrUnknownKind", err)
			}
			if err := c.Delete(ctx, ref, ""); !errors.Is(err, ports.ErrUnknownKind) {
				t.Errorf("Delete = %v, want ErrUnknownKind", err)
			}
			o := clusterObject(t, `{"apiVersion":%q,"kind":%q,"metadata":{"name":"x","namespace":%q}}`, k[0], k[1], f.Namespace)
			if _, err := c.Apply(ctx, o, ports.ApplyOptions{}); !errors.Is(err, ports.ErrUnknownKind) {
				t.Errorf("Apply = %v, want ErrUnknownKind", err)
			}
		})
	}
}

func testClusterNamespaced(t *testing.T, ctx context.Context, f ClusterFixture) {
	tests := map[string]struct {
		apiVersion, kind string
		want             bool
	}{
		"ConfigMap":                {"v1", "ConfigMap", true},
		"Namespace":                {"v1", "Namespace", false},
		"Deployment":               {"apps/v1", "Deployment", true},
		"Job":                      {"batch/v1", "Job", true},
		"ClusterRole":              {"rbac.authorization.k8s.io/v1", "ClusterRole", false},
		"CustomResourceDefinition": {"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := f.Cluster.Namespaced(ctx, tc.apiVersion, tc.kind)
			if err != nil || got != tc.want {
				t.Errorf("Namespaced(%s, %s) = %v, %v; want %v", tc.apiVersion, tc.kind, got, err, tc.want)
			}
		})
	}
}

func names(objs []ports.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	return out
}

func testClusterListSelector(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	objects := map[string]map[string]string{
		"a": {"app": "web", "tier": "front"},
		"b": {"app": "web"},
		"c": {"app": "db"},
	}
	for name, labels := range objects {
		o := configMap(t, f.Namespace, name, `{}`)
		labels["suite"] = f.Namespace
		o.SetLabels(labels)
		mustApply(t, ctx, c, o, ports.ApplyOptions{})
	}
	tests := map[string]struct {
		namespace, selector string
		want                []string
	}{
		"equality":                     {f.Namespace, "app=web", []string{"a", "b"}},
		"inequality":                   {f.Namespace, "app,app!=web", []string{"c"}},
		"set":                          {f.Namespace, "app in (web,db)", []string{"a", "b", "c"}},
		"existence":                    {f.Namespace, "tier", []string{"a"}},
		"absence":                      {f.Namespace, "app,!tier", []string{"b", "c"}},
		"no match":                     {f.Namespace, "app=none", nil},
		"all namespaces":               {"", "suite=" + f.Namespace, []string{"a", "b", "c"}},
		"another namespace":            {f.Namespace + "-other", "app", nil},
		"all objects of the namespace": {f.Namespace, "suite=" + f.Namespace, []string{"a", "b", "c"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := c.List(ctx, "v1", "ConfigMap", tc.namespace, tc.selector)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(names(got)) != fmt.Sprint(tc.want) {
				t.Errorf("List(%q, %q) = %v, want %v", tc.namespace, tc.selector, names(got), tc.want)
			}
		})
	}
	t.Run("malformed selector", func(t *testing.T) {
		if _, err := c.List(ctx, "v1", "ConfigMap", f.Namespace, "app=("); err == nil {
			t.Error("a malformed selector was accepted")
		}
	})
}

func testClusterListClusterScoped(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	nss, err := c.List(ctx, "v1", "Namespace", "", "kubernetes.io/metadata.name="+f.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(names(nss)) != fmt.Sprint([]string{f.Namespace}) {
		t.Errorf("namespaces = %v, want the test's own", names(nss))
	}
	role := clusterObject(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":%q,"labels":{"suite":%q}},"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]}]}`,
		f.Namespace+"-reader", f.Namespace)
	t.Cleanup(func() { _ = c.Delete(context.Background(), ports.RefOf(role), "") })
	live := mustApply(t, ctx, c, role, ports.ApplyOptions{})
	if live.GetNamespace() != "" {
		t.Errorf("a cluster-scoped object has namespace %q", live.GetNamespace())
	}
	mustGet(t, ctx, c, ports.ObjectRef{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: role.GetName()})
	for _, ns := range []string{"", f.Namespace} {
		got, err := c.List(ctx, "rbac.authorization.k8s.io/v1", "ClusterRole", ns, "suite="+f.Namespace)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(names(got)) != fmt.Sprint([]string{role.GetName()}) {
			t.Errorf("List(ClusterRole, %q) = %v", ns, names(got))
		}
	}
}

func testClusterMissingNamespace(t *testing.T, ctx context.Context, f ClusterFixture) {
	o := configMap(t, f.Namespace+"-missing", "web", `{}`)
	if _, err := f.Cluster.Apply(ctx, o, ports.ApplyOptions{}); err == nil {
		t.Fatal("an object was created in a namespace that does not exist")
	}
	if _, err := f.Cluster.Get(ctx, ports.RefOf(o)); !errors.Is(err, ports.ErrObjectNotFound) {
		t.Errorf("get = %v, want not found", err)
	}
}

func testClusterDelete(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	for _, p := range []ports.Propagation{"", ports.PropagationBackground, ports.PropagationForeground, ports.PropagationOrphan} {
		name := "web-" + string(p)
		if p == "" {
			name = "web-default"
		}
		t.Run(name, func(t *testing.T) {
			o := mustApply(t, ctx, c, configMap(t, f.Namespace, name, `{}`), ports.ApplyOptions{})
			if err := c.Delete(ctx, ports.RefOf(o), p); err != nil {
				t.Fatal(err)
			}
			if err := c.WaitDeleted(ctx, []ports.ObjectRef{ports.RefOf(o)}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get(ctx, ports.RefOf(o)); !errors.Is(err, ports.ErrObjectNotFound) {
				t.Errorf("get after delete = %v", err)
			}
			if err := c.Delete(ctx, ports.RefOf(o), p); !errors.Is(err, ports.ErrObjectNotFound) {
				t.Errorf("second delete = %v", err)
			}
		})
	}
	t.Run("nothing to wait for", func(t *testing.T) {
		ref := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: f.Namespace, Name: "never"}
		if err := c.WaitDeleted(ctx, []ports.ObjectRef{ref}); err != nil {
			t.Error(err)
		}
	})
}

func testClusterPropagation(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	tests := map[ports.Propagation]bool{ // propagation: the dependent is deleted
		ports.PropagationBackground: true,
		ports.PropagationForeground: true,
		ports.PropagationOrphan:     false,
	}
	for p, deleted := range tests {
		t.Run(string(p), func(t *testing.T) {
			owner := mustApply(t, ctx, c, configMap(t, f.Namespace, "owner-"+string(p), `{}`), ports.ApplyOptions{})
			dep := clusterObject(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dependent-%s","namespace":%q,
				"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":%q,"uid":%q,"blockOwnerDeletion":true}]}}`,
				p, f.Namespace, owner.GetName(), field(owner, "metadata", "uid"))
			mustApply(t, ctx, c, dep, ports.ApplyOptions{})
			if err := c.Delete(ctx, ports.RefOf(owner), p); err != nil {
				t.Fatal(err)
			}
			if err := c.WaitDeleted(ctx, []ports.ObjectRef{ports.RefOf(owner)}); err != nil {
				t.Fatal(err)
			}
			if p == ports.PropagationBackground {
				// The garbage collector deletes dependents after their owner.
				if err := c.WaitDeleted(ctx, []ports.ObjectRef{ports.RefOf(dep)}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := c.Get(ctx, ports.RefOf(dep))
			switch {
			case deleted && !errors.Is(err, ports.ErrObjectNotFound):
				t.Errorf("dependent after the owner's %s deletion: %v, %v", p, field(got, "metadata"), err)
			case !deleted && err != nil:
				t.Errorf("orphaned dependent: %v", err)
			case !deleted && field(got, "metadata", "ownerReferences") != "":
				t.Errorf("orphaned dependent keeps owner references %s", field(got, "metadata", "ownerReferences"))
			}
		})
	}
}

func testClusterDroppedField(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	full := configMap(t, f.Namespace, "web", `{"x":"1","y":"2"}`)
	full.SetLabels(map[string]string{"keep": "1", "drop": "1"})
	full.SetAnnotations(map[string]string{"drop": "1"})
	mustApply(t, ctx, c, full, ports.ApplyOptions{})
	less := configMap(t, f.Namespace, "web", `{"x":"1"}`)
	less.SetLabels(map[string]string{"keep": "1"})
	live := mustApply(t, ctx, c, less, ports.ApplyOptions{})
	for _, o := range []ports.Object{live, mustGet(t, ctx, c, ports.RefOf(less))} {
		assertData(t, o, map[string]string{"x": "1"})
		if l := o.GetLabels(); fmt.Sprint(l) != "map[keep:1]" {
			t.Errorf("labels = %v, want only keep", l)
		}
		if a := o.GetAnnotations(); a["drop"] != "" {
			t.Errorf("annotations = %v, want none", a)
		}
	}
}

func testClusterDroppedShared(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"x":"1","y":"2"}`), ports.ApplyOptions{})
	// The same value: the field is shared, without a conflict.
	if _, err := others.ApplyAs(ctx, "porttest-other", configMap(t, f.Namespace, "web", `{"y":"2"}`), ports.ApplyOptions{}); err != nil {
		t.Fatalf("another manager's apply of the same value: %v", err)
	}
	live := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"x":"1"}`), ports.ApplyOptions{})
	assertData(t, live, map[string]string{"x": "1", "y": "2"})
}

// assertConflict fails unless err is a *ports.ConflictError with want among
// its conflicts.
func assertConflict(t *testing.T, err error, want ports.FieldConflict) {
	t.Helper()
	var ce *ports.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v (%T), want a *ports.ConflictError", err, err)
	}
	if !slices.Contains(ce.Conflicts, want) {
		t.Errorf("conflicts = %+v, want %+v among them", ce.Conflicts, want)
	}
	if !strings.Contains(err.Error(), want.Manager) {
		t.Errorf("the message does not name %s: %v", want.Manager, err)
	}
}

func testClusterConflictApply(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	ours := configMap(t, f.Namespace, "web", `{"x":"ours","y":"ours"}`)
	mustApply(t, ctx, c, ours, ports.ApplyOptions{})
	if _, err := others.ApplyAs(ctx, "porttest-other", configMap(t, f.Namespace, "web", `{"x":"theirs"}`), ports.ApplyOptions{ForceConflicts: true}); err != nil {
		t.Fatalf("forced apply as another manager: %v", err)
	}
	_, err := c.Apply(ctx, ours, ports.ApplyOptions{})
	assertConflict(t, err, ports.FieldConflict{Manager: "porttest-other", Field: ".data.x"})
	assertData(t, mustGet(t, ctx, c, ports.RefOf(ours)), map[string]string{"x": "theirs", "y": "ours"})

	live := mustApply(t, ctx, c, ours, ports.ApplyOptions{ForceConflicts: true})
	assertData(t, live, map[string]string{"x": "ours", "y": "ours"})
	// The field is ours now: the other manager's unforced apply conflicts.
	if _, err := others.ApplyAs(ctx, "porttest-other", configMap(t, f.Namespace, "web", `{"x":"theirs"}`), ports.ApplyOptions{}); err == nil {
		t.Error("a forced apply did not take the field over")
	}
}

func testClusterConflictUpdate(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	ours := configMap(t, f.Namespace, "web", `{"x":"ours"}`)
	mustApply(t, ctx, c, ours, ports.ApplyOptions{})
	edited := configMap(t, f.Namespace, "web", `{"x":"edited"}`)
	if _, err := others.UpdateAs(ctx, "porttest-edit", edited); err != nil {
		t.Fatalf("update as another manager: %v", err)
	}
	_, err := c.Apply(ctx, ours, ports.ApplyOptions{})
	assertConflict(t, err, ports.FieldConflict{Manager: "porttest-edit", Field: ".data.x"})
	live := mustApply(t, ctx, c, ours, ports.ApplyOptions{ForceConflicts: true})
	assertData(t, live, map[string]string{"x": "ours"})
}

func testClusterTakeOverNamed(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	ours := configMap(t, f.Namespace, "web", `{"x":"ours","y":"ours"}`)
	mustApply(t, ctx, c, ours, ports.ApplyOptions{})
	force := ports.ApplyOptions{ForceConflicts: true}
	if _, err := others.ApplyAs(ctx, "porttest-helm", configMap(t, f.Namespace, "web", `{"x":"helm"}`), force); err != nil {
		t.Fatal(err)
	}
	if _, err := others.ApplyAs(ctx, "porttest-edit", configMap(t, f.Namespace, "web", `{"y":"edit"}`), force); err != nil {
		t.Fatal(err)
	}
	takeOver := ports.ApplyOptions{TakeOverFrom: []string{"porttest-helm"}}
	_, err := c.Apply(ctx, ours, takeOver)
	assertConflict(t, err, ports.FieldConflict{Manager: "porttest-edit", Field: ".data.y"})
	if ce := (*ports.ConflictError)(nil); errors.As(err, &ce) && !slices.Contains(ce.Managers(), "porttest-edit") {
		t.Errorf("managers = %v", ce.Managers())
	}
	assertData(t, mustGet(t, ctx, c, ports.RefOf(ours)), map[string]string{"x": "helm", "y": "edit"})

	// Only the named manager's field differs now: it is taken over.
	live := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"x":"ours","y":"edit"}`), takeOver)
	assertData(t, live, map[string]string{"x": "ours", "y": "edit"})
}

// deploymentWith is a Deployment web with the given containers.
func deploymentWith(t *testing.T, ns, containers string) ports.Object {
	t.Helper()
	return clusterObject(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":%q},
		"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":%s}}}}`, ns, containers)
}

func testClusterListItems(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	ours := deploymentWith(t, f.Namespace, `[{"name":"web","image":"nginx:1"}]`)
	mustApply(t, ctx, c, ours, ports.ApplyOptions{})
	// Another manager adds a container (an injected sidecar): ours stays
	// ours, theirs stays when we apply again.
	sidecar := clusterObject(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":%q},
		"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy:1"}]}}}}`, f.Namespace)
	if _, err := others.ApplyAs(ctx, "porttest-injector", sidecar, ports.ApplyOptions{}); err != nil {
		t.Fatalf("another manager's container: %v", err)
	}
	live := mustApply(t, ctx, c, ours, ports.ApplyOptions{})
	if got := containerImages(live); got != "web=nginx:1 sidecar=envoy:1" {
		t.Errorf("containers = %s, want ours and the sidecar", got)
	}
	// A change of their container's field conflicts, named by the item's key.
	_, err := c.Apply(ctx, deploymentWith(t, f.Namespace, `[{"name":"web","image":"nginx:1"},{"name":"sidecar","image":"envoy:2"}]`), ports.ApplyOptions{})
	assertConflict(t, err, ports.FieldConflict{Manager: "porttest-injector", Field: `.spec.template.spec.containers[name="sidecar"].image`})
}

// containerImages reads "name=image ..." of a workload's containers.
func containerImages(o ports.Object) string {
	var out []string
	spec, _ := o["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	list, _ := pod["containers"].([]any)
	for _, c := range list {
		m, _ := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v=%v", m["name"], m["image"]))
	}
	return strings.Join(out, " ")
}

func testClusterGeneration(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	d := deploymentWith(t, f.Namespace, `[{"name":"web","image":"nginx:1"}]`)
	steps := []struct {
		change func(ports.Object)
		want   string
	}{
		{func(ports.Object) {}, "1"},
		{func(o ports.Object) { o.SetLabels(map[string]string{"team": "a"}) }, "1"},
		{func(o ports.Object) { o["spec"].(map[string]any)["replicas"] = 2 }, "2"},
	}
	for i, s := range steps {
		s.change(d)
		live := mustApply(t, ctx, c, d, ports.ApplyOptions{})
		if got := field(live, "metadata", "generation"); got != s.want {
			t.Errorf("step %d: generation %s, want %s", i, got, s.want)
		}
	}
	if cm := mustApply(t, ctx, c, configMap(t, f.Namespace, "web", `{"x":"1"}`), ports.ApplyOptions{}); field(cm, "metadata", "generation") != "" {
		t.Errorf("a ConfigMap has generation %s", field(cm, "metadata", "generation"))
	}
}

func testClusterTakeOverUpdates(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	helm := configMap(t, f.Namespace, "web", `{"kept":"a","dropped":"b"}`)
	if _, err := others.UpdateAs(ctx, "porttest-helm", helm); err != nil {
		t.Fatalf("create as another manager: %v", err)
	}
	ours := configMap(t, f.Namespace, "web", `{"kept":"c"}`)
	_, err := c.Apply(ctx, ours, ports.ApplyOptions{})
	assertConflict(t, err, ports.FieldConflict{Manager: "porttest-helm", Field: ".data.kept"})
	live := mustApply(t, ctx, c, ours, ports.ApplyOptions{TakeOverFrom: []string{"porttest-helm"}})
	// Fields the other manager wrote and the applied object lacks are gone,
	// as when Helm's chart drops them.
	assertData(t, live, map[string]string{"kept": "c"})
	assertData(t, mustGet(t, ctx, c, ports.RefOf(ours)), map[string]string{"kept": "c"})
}

func testClusterImmutable(t *testing.T, ctx context.Context, f ClusterFixture) {
	job := func(image string) string {
		return fmt.Sprintf(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"migrate","namespace":%q},
			"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":%q}]}}}}`, f.Namespace, image)
	}
	deployment := func(app string) string {
		return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":%q},
			"spec":{"replicas":1,"selector":{"matchLabels":{"app":%q}},
			"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`, f.Namespace, app, app)
	}
	service := func(clusterIP string) string {
		ip := ""
		if clusterIP != "" {
			ip = fmt.Sprintf(`"clusterIP":%q,`, clusterIP)
		}
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":%q},
			"spec":{%s"ports":[{"port":80}]}}`, f.Namespace, ip)
	}
	tests := map[string]struct{ before, after string }{
		"a Job's pod template":    {job("busybox:1"), job("busybox:2")},
		"a Deployment's selector": {deployment("a"), deployment("b")},
		"a Service's cluster IP":  {service(""), service("10.0.0.123")},
		"an immutable ConfigMap":  {fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen","namespace":%q},"immutable":true,"data":{"x":"1"}}`, f.Namespace), fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen","namespace":%q},"immutable":true,"data":{"x":"2"}}`, f.Namespace)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := f.Cluster
			before := mustApply(t, ctx, c, clusterObject(t, "%s", tc.before), ports.ApplyOptions{})
			after := clusterObject(t, "%s", tc.after)
			_, err := c.Apply(ctx, after, ports.ApplyOptions{})
			if !errors.Is(err, ports.ErrInvalid) {
				t.Fatalf("changing an immutable field: %v, want ErrInvalid", err)
			}
			// The use cases word the refusal from the object it names.
			if ae := (*ports.ApplyError)(nil); !errors.As(err, &ae) || ae.Ref != ports.RefOf(after) {
				t.Errorf("changing an immutable field: %v, want an ApplyError naming %s", err, ports.RefOf(after))
			}
			if _, err := c.Apply(ctx, after, ports.ApplyOptions{ForceConflicts: true, DryRun: true}); !errors.Is(err, ports.ErrInvalid) {
				t.Errorf("dry run of the change: %v, want ErrInvalid", err)
			}
			got := mustGet(t, ctx, c, ports.RefOf(before))
			if field(got, "metadata", "uid") != field(before, "metadata", "uid") {
				t.Error("the object was replaced")
			}
			if field(got, "spec") != field(before, "spec") || field(got, "data") != field(before, "data") {
				t.Errorf("the object changed:\n got %s\nwant %s", field(got, "spec")+field(got, "data"), field(before, "spec")+field(before, "data"))
			}
		})
	}
}

func testClusterWaitReady(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	cm := mustApply(t, ctx, c, configMap(t, f.Namespace, "config", `{}`), ports.ApplyOptions{})
	d := mustApply(t, ctx, c, clusterObject(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":%q},
		"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`, f.Namespace), ports.ApplyOptions{})
	var mu sync.Mutex
	var seen []ports.ObjectStatus
	progress := func(s ports.ObjectStatus) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}
	if err := c.WaitReady(ctx, []ports.ObjectRef{ports.RefOf(cm), ports.RefOf(d)}, ports.WaitOptions{Progress: progress}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var last *ports.ObjectStatus
	for i := range seen {
		if seen[i].Ref == ports.RefOf(d) {
			last = &seen[i]
		}
	}
	if last == nil || !last.Ready {
		t.Errorf("progress = %+v, want the Deployment reported ready last", seen)
	}
}

func testClusterWaitNotReady(t *testing.T, ctx context.Context, f ClusterFixture) {
	ref := ports.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: f.Namespace, Name: "never-created"}
	tests := map[string]struct {
		ctx   func() (context.Context, context.CancelFunc)
		cause error
	}{
		"cancelled": {func() (context.Context, context.CancelFunc) {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c, cancel
		}, context.Canceled},
		"deadline": {func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 500*time.Millisecond) }, context.DeadlineExceeded},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			wctx, cancel := tc.ctx()
			defer cancel()
			err := f.Cluster.WaitReady(wctx, []ports.ObjectRef{ref}, ports.WaitOptions{})
			var nre *ports.NotReadyError
			if !errors.As(err, &nre) {
				t.Fatalf("err = %v (%T), want a *ports.NotReadyError", err, err)
			}
			if len(nre.Pending) != 1 || nre.Pending[0].Ref != ref || nre.Pending[0].Ready {
				t.Errorf("pending = %+v, want %s", nre.Pending, ref)
			}
			if !errors.Is(err, tc.cause) {
				t.Errorf("err = %v, want it to wrap %v", err, tc.cause)
			}
		})
	}
}

// deleteHeld applies a ConfigMap named held that a finalizer holds, and
// deletes it: it stays, being deleted.
func deleteHeld(t *testing.T, ctx context.Context, f ClusterFixture) ports.Object {
	t.Helper()
	o := configMap(t, f.Namespace, "held", `{}`)
	o["metadata"].(map[string]any)["finalizers"] = []any{"porttest.kubectl-chart.dev/hold"}
	mustApply(t, ctx, f.Cluster, o, ports.ApplyOptions{})
	if err := f.Cluster.Delete(ctx, ports.RefOf(o), ports.PropagationBackground); err != nil {
		t.Fatal(err)
	}
	return o
}

func testClusterWaitFinalizers(t *testing.T, ctx context.Context, f ClusterFixture) {
	others := needOthers(t, f)
	c := f.Cluster
	o := deleteHeld(t, ctx, f)
	live := mustGet(t, ctx, c, ports.RefOf(o))
	if field(live, "metadata", "deletionTimestamp") == "" {
		t.Errorf("an object with a finalizer has no deletionTimestamp after delete: %v", live["metadata"])
	}
	done := make(chan error, 1)
	go func() { done <- c.WaitDeleted(ctx, []ports.ObjectRef{ports.RefOf(o)}) }()
	select {
	case err := <-done:
		t.Fatalf("WaitDeleted returned while a finalizer held the object: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	md := live["metadata"].(map[string]any)
	delete(md, "finalizers")
	delete(md, "managedFields")
	if _, err := others.UpdateAs(ctx, "porttest-controller", live); err != nil {
		t.Fatalf("remove the finalizer: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("WaitDeleted did not return once the finalizer was removed")
	}
	if _, err := c.Get(ctx, ports.RefOf(o)); !errors.Is(err, ports.ErrObjectNotFound) {
		t.Errorf("get = %v, want not found", err)
	}
}

// crd is a CustomResourceDefinition in a group of the test's own.
func crd(t *testing.T, group, kind, scope string) ports.Object {
	t.Helper()
	plural := strings.ToLower(kind) + "s"
	return clusterObject(t, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"%s.%s"},
		"spec":{"group":%q,"scope":%q,"names":{"kind":%q,"plural":%q,"singular":%q,"listKind":"%sList"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
		"properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`,
		plural, group, group, scope, kind, plural, strings.ToLower(kind), kind)
}

func deleteCRDs(t *testing.T, c ports.Cluster, crds ...ports.Object) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, o := range crds {
			if err := c.Delete(ctx, ports.RefOf(o), ""); err != nil && !errors.Is(err, ports.ErrObjectNotFound) {
				t.Errorf("delete %s: %v", o.GetName(), err)
			}
		}
	})
}

func testClusterInstallCRDs(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	group := f.Namespace + ".porttest.kubectl-chart.dev"
	widget, gadget := crd(t, group, "Widget", "Namespaced"), crd(t, group, "Gadget", "Cluster")
	deleteCRDs(t, c, widget, gadget)
	apiVersion := group + "/v1"
	if _, err := c.Namespaced(ctx, apiVersion, "Widget"); !errors.Is(err, ports.ErrUnknownKind) {
		t.Fatalf("before InstallCRDs: %v, want ErrUnknownKind", err)
	}
	if _, err := c.Capabilities(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.InstallCRDs(ctx, []ports.Object{widget, gadget}, "porttest-creator"); err != nil {
		t.Fatal(err)
	}
	if got := ManagersOf(mustGet(t, ctx, c, ports.RefOf(widget))); !slices.Contains(got, "porttest-creator/Update") {
		t.Errorf("managers of the created CRD = %v, want an update by porttest-creator", got)
	}
	for kind, want := range map[string]bool{"Widget": true, "Gadget": false} {
		if got, err := c.Namespaced(ctx, apiVersion, kind); err != nil || got != want {
			t.Errorf("Namespaced(%s) = %v, %v; want %v", kind, got, err, want)
		}
	}
	caps, err := c.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{apiVersion, apiVersion + "/Widget", apiVersion + "/Gadget"} {
		if !caps.APIVersions.Has(v) {
			t.Errorf("capabilities lack %s after InstallCRDs", v)
		}
	}
	w := clusterObject(t, `{"apiVersion":%q,"kind":"Widget","metadata":{"name":"w","namespace":%q},"spec":{"size":3}}`, apiVersion, f.Namespace)
	mustApply(t, ctx, c, w, ports.ApplyOptions{})
	if got := mustGet(t, ctx, c, ports.RefOf(w)); field(got, "spec", "size") != "3" {
		t.Errorf("widget spec = %s", field(got, "spec"))
	}
	g := clusterObject(t, `{"apiVersion":%q,"kind":"Gadget","metadata":{"name":%q},"spec":{"on":true}}`, apiVersion, f.Namespace+"-g")
	mustApply(t, ctx, c, g, ports.ApplyOptions{})
	if got, err := c.List(ctx, apiVersion, "Gadget", "", ""); err != nil || fmt.Sprint(names(got)) != fmt.Sprint([]string{g.GetName()}) {
		t.Errorf("gadgets = %v, %v", names(got), err)
	}
}

func testClusterInstallCRDsExisting(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	group := f.Namespace + ".porttest.kubectl-chart.dev"
	widget, gadget := crd(t, group, "Widget", "Namespaced"), crd(t, group, "Gadget", "Cluster")
	deleteCRDs(t, c, widget, gadget)
	if err := c.InstallCRDs(ctx, []ports.Object{widget}, ""); err != nil {
		t.Fatal(err)
	}
	changed := crd(t, group, "Widget", "Namespaced")
	changed.SetLabels(map[string]string{"porttest": "changed"})
	if err := c.InstallCRDs(ctx, []ports.Object{changed, gadget}, ""); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, ctx, c, ports.RefOf(widget)); got.GetLabels()["porttest"] != "" {
		t.Errorf("an existing CRD was changed: labels %v", got.GetLabels())
	}
	if _, err := c.Namespaced(ctx, group+"/v1", "Gadget"); err != nil {
		t.Errorf("the new CRD of the second call: %v", err)
	}
}

func testClusterCapabilities(t *testing.T, ctx context.Context, f ClusterFixture) {
	caps, err := f.Cluster.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if caps.KubeVersion.Major != "1" || caps.KubeVersion.Minor == "" || !strings.HasPrefix(caps.KubeVersion.Version, "v1.") {
		t.Errorf("kube version = %+v", caps.KubeVersion)
	}
	for _, v := range []string{"v1", "v1/ConfigMap", "apps/v1", "apps/v1/Deployment", "batch/v1/Job",
		"rbac.authorization.k8s.io/v1/ClusterRole", "apiextensions.k8s.io/v1/CustomResourceDefinition"} {
		if !caps.APIVersions.Has(v) {
			t.Errorf("capabilities lack %s", v)
		}
	}
	if caps.APIVersions.Has("porttest.invalid/v1") {
		t.Error("capabilities list a group the cluster does not serve")
	}
}

func testClusterConcurrent(t *testing.T, ctx context.Context, f ClusterFixture) {
	c := f.Cluster
	const n = 32
	var writes [n][2]ports.Object
	for i := range n {
		for v := range 2 {
			o := configMap(t, f.Namespace, fmt.Sprintf("cm-%02d", i), fmt.Sprintf(`{"v":"%d"}`, v))
			o.SetLabels(map[string]string{"suite": "concurrent"})
			writes[i][v] = o
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, o := range writes[i] {
				if _, err := c.Apply(ctx, o, ports.ApplyOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := c.List(ctx, "v1", "ConfigMap", f.Namespace, "suite=concurrent")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d objects listed, want %d", len(got), n)
	}
	for _, o := range got {
		assertData(t, o, map[string]string{"v": "1"})
	}
}
