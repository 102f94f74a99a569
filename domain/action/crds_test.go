package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// widgetCRD is a CRD of Widgets in example.test with the given versions:
// "v1" served and storage with the default schema; "v1:unserved", "v2:storage"
// and a schema as "v1{...properties of spec...}".
func widgetCRD(versions ...string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.test
spec:
  group: example.test
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
`)
	for i, v := range versions {
		props := "{size: {type: integer}, color: {type: string}}"
		if j := strings.Index(v, "{"); j >= 0 {
			v, props = v[:j], v[j:]
		}
		name, flag, _ := strings.Cut(v, ":")
		served, storage := flag != "unserved", flag == "storage" || (len(versions) == 1)
		if flag == "" && i == len(versions)-1 && !strings.Contains(strings.Join(versions, ","), ":storage") {
			storage = true
		}
		fmt.Fprintf(&b, "  - name: %s\n    served: %v\n    storage: %v\n", name, served, storage)
		fmt.Fprintf(&b, "    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: %s}}}}\n", props)
	}
	return b.String()
}

func widget(name, spec string) string {
	return fmt.Sprintf("apiVersion: example.test/v1\nkind: Widget\nmetadata:\n  name: %s\nspec: %s\n", name, spec)
}

type crdHarness struct {
	cluster *memcluster.Cluster
	store   *memory.Store
	l       *Lifecycle
}

// newCRDHarness installs release web with the CRD's first version and one
// Widget, and a second Widget made by someone else.
func newCRDHarness(t *testing.T) *crdHarness {
	t.Helper()
	ctx := context.Background()
	h := &crdHarness{cluster: memcluster.New(memcluster.WithNamespaces(ns)), store: memory.New()}
	h.l = &Lifecycle{Cluster: h.cluster, Store: h.store, Clock: fixedClock{}}
	ch := demoChart(map[string]string{"crds/widgets.yaml": widgetCRD("v1"), "w.yaml": widget("w1", "{size: 1}")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}); err != nil {
		t.Fatal(err)
	}
	legacy := ports.Object{"apiVersion": "example.test/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "legacy", "namespace": ns}, "spec": map[string]any{"size": int64(2), "color": "red"}}
	if _, err := h.cluster.ApplyAs(ctx, "kubectl", legacy, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *crdHarness) crd(t *testing.T) ports.Object {
	t.Helper()
	o, err := h.cluster.Get(context.Background(), ports.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.test"})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func versionNames(crd ports.Object) string {
	var out []string
	for _, v := range crdVersions(crd) {
		out = append(out, v.name)
	}
	return strings.Join(out, ",")
}

// --crds upgrade applies the chart's CRDs when that loses no data, and
// refuses naming the CRD and the objects when it could; nothing changes then.
func TestCRDUpgrade(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		crd    string
		policy CRDPolicy
		// versions are the live CRD's after the upgrade ("" when refused).
		versions string
		refused  []string
	}{
		"a new field and a new storage version": {
			crd: widgetCRD("v1", "v2:storage{size: {type: integer}, color: {type: string}, shape: {type: string}}"), policy: CRDsUpgrade,
			versions: "v1,v2",
		},
		"Helm's create leaves an existing CRD alone on upgrade": {
			crd: widgetCRD("v2"), policy: CRDsCreate, versions: "v1",
		},
		"skip": {crd: widgetCRD("v2"), policy: CRDsSkip, versions: "v1"},
		"a stored version dropped": {
			crd: widgetCRD("v2"), policy: CRDsUpgrade,
			refused: []string{"CustomResourceDefinition widgets.example.test: the new definition drops version v1, which is in status.storedVersions (objects may still be stored in it)"},
		},
		"a stored version no longer served": {
			crd: widgetCRD("v1:unserved", "v2:storage"), policy: CRDsUpgrade,
			refused: []string{"CustomResourceDefinition widgets.example.test: the new definition stops serving version v1, in which existing objects are stored (status.storedVersions): Widget apps/legacy, Widget apps/w1"},
		},
		"a field an object holds is no longer declared": {
			crd: widgetCRD("v1{size: {type: integer}}"), policy: CRDsUpgrade,
			refused: []string{"CustomResourceDefinition widgets.example.test: Widget apps/legacy would not be valid under the new schema of version v1: at '/spec': additional properties 'color' not allowed"},
		},
		"a type that changed, for every object": {
			crd: widgetCRD("v1{size: {type: string}, color: {type: string}}"), policy: CRDsUpgrade,
			refused: []string{
				"CustomResourceDefinition widgets.example.test: Widget apps/legacy would not be valid under the new schema of version v1: at '/spec/size': got number, want string",
				"CustomResourceDefinition widgets.example.test: Widget apps/w1 would not be valid under the new schema of version v1: at '/spec/size': got number, want string",
			},
		},
		"a new version's schema, objects being served in it unchanged": {
			crd: widgetCRD("v1", "v2:storage{size: {type: integer, maximum: 1}, color: {type: string}}"), policy: CRDsUpgrade,
			refused: []string{"CustomResourceDefinition widgets.example.test: Widget apps/legacy would not be valid under the new schema of version v2: at '/spec/size': maximum: got 2, want 1"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newCRDHarness(t)
			before := h.crd(t)
			ch := demoChart(map[string]string{"crds/widgets.yaml": tc.crd, "w.yaml": widget("w1", "{size: 1}")})
			h.cluster.ResetCalls()
			_, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(ch, nil), CRDs: tc.policy})
			if tc.refused == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got := versionNames(h.crd(t)); got != tc.versions {
					t.Errorf("versions after the upgrade: %s, want %s", got, tc.versions)
				}
				return
			}
			var ce *CRDUpgradeError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCRDUpgrade) {
				t.Fatalf("error = %v, want a CRD upgrade refusal", err)
			}
			var got []string
			for _, p := range ce.Problems {
				got = append(got, p.Message)
				if p.Type != plan.ProblemCRDUpgrade || p.Ref.Name != "widgets.example.test" {
					t.Errorf("problem %+v", p)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.refused, "\n") {
				t.Errorf("refused:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.refused, "\n"))
			}
			if !strings.HasPrefix(err.Error(), "refusing to upgrade CRDs, nothing was changed: ") {
				t.Errorf("error = %v", err)
			}
			if calls := h.cluster.Calls(memcluster.VerbApply, memcluster.VerbDelete, memcluster.VerbInstallCRD); len(calls) != 0 {
				t.Errorf("the cluster was written: %v", calls)
			}
			if after := h.crd(t); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the CRD changed")
			}
			if hist, _ := h.store.History(ctx, ns, "web"); len(hist) != 1 {
				t.Errorf("%d revisions, want 1", len(hist))
			}
		})
	}
}

// diff shows a CRD's upgrade like any object's, and its refusals as problems;
// an install with --crds upgrade upgrades a CRD that exists.
func TestCRDUpgradePreviewAndInstall(t *testing.T) {
	ctx := context.Background()
	h := newCRDHarness(t)
	newer := widgetCRD("v1", "v2:storage")
	pl, err := h.l.PreviewUpgrade(ctx, UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"crds/widgets.yaml": newer, "w.yaml": widget("w1", "{size: 1}")}), nil), CRDs: CRDsUpgrade})
	if err != nil {
		t.Fatal(err)
	}
	changes, err := pl.Changes(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Header() != "CustomResourceDefinition widgets.example.test (update)" ||
		!strings.Contains(string(changes[0].After), "name: v2") || strings.Contains(string(changes[0].Before), "name: v2") {
		t.Fatalf("changes: %+v", changes)
	}
	pl, err = h.l.PreviewUpgrade(ctx, UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"crds/widgets.yaml": widgetCRD("v2"), "w.yaml": widget("w1", "{size: 1}")}), nil), CRDs: CRDsUpgrade})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Problems) != 1 || pl.Problems[0].Type != plan.ProblemCRDUpgrade || !strings.Contains(pl.Problems[0].Message, "drops version v1") {
		t.Errorf("problems: %+v", pl.Problems)
	}

	// Another release of the same chart, installed with --crds upgrade.
	other := InstallRequest{ReleaseSpec: spec(demoChart(map[string]string{"crds/widgets.yaml": newer, "w.yaml": widget("w2", "{size: 2}")}), nil), CRDs: CRDsUpgrade}
	other.ReleaseName = "second"
	if _, err := h.l.Install(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := versionNames(h.crd(t)); got != "v1,v2" {
		t.Errorf("versions after the install: %s", got)
	}

	// The preflight asks for patching CRDs and reading their objects.
	crdRules := func(verbs ...string) []ports.Access {
		var out []ports.Access
		for _, v := range verbs {
			out = append(out, ports.Access{Verb: v, Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"})
		}
		return out
	}
	h.cluster.Restrict(append(crdRules("get", "list", "watch"), ports.Access{Verb: "*", Resource: "*", Namespace: ns})...)
	newest := widgetCRD("v1", "v2", "v3:storage")
	_, err = h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(demoChart(map[string]string{"crds/widgets.yaml": newest, "w.yaml": widget("w1", "{size: 1}")}), nil), CRDs: CRDsUpgrade})
	var pe *plan.PermissionsError
	if !errors.As(err, &pe) || strings.Join(pe.Missing, "; ") != "patch customresourcedefinitions.apiextensions.k8s.io (cluster-wide); list widgets.example.test (cluster-wide)" {
		t.Errorf("upgrade without permissions: %v", err)
	}
}

func TestParseCRDPolicy(t *testing.T) {
	for in, want := range map[string]CRDPolicy{"": CRDsCreate, "create": CRDsCreate, "upgrade": CRDsUpgrade, "skip": CRDsSkip} {
		if got, err := ParseCRDPolicy(in); err != nil || got != want {
			t.Errorf("ParseCRDPolicy(%q) = %s, %v", in, got, err)
		}
	}
	if _, err := ParseCRDPolicy("update"); err == nil || err.Error() != `invalid --crds "update": want create, upgrade or skip` {
		t.Errorf("ParseCRDPolicy(update) = %v", err)
	}
}
