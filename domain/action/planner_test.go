package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

const server = "https://127.0.0.1:6443"

// actions lists a plan's steps as "Kind/name=action", sorted.
func actions(p *plan.Plan) string {
	var out []string
	for _, s := range p.Steps() {
		out = append(out, fmt.Sprintf("%s/%s=%s", s.Ref.Kind, s.Ref.Name, s.Action))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func keptCM(name string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  annotations:\n    helm.sh/resource-policy: keep\n", name)
}

func TestPlanActions(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	h.l.ClusterServer = server
	v1 := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b"), "k.yaml": keptCM("k"), "d.yaml": deploy("web")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(v1, nil)}); err != nil {
		t.Fatal(err)
	}
	// An object the release never had, carrying its ownership metadata.
	orphan := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": ns}}
	setOwner(orphan, &release.Release{Name: "web", Namespace: ns})
	if _, err := h.c.Apply(ctx, orphan, ports.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	hist, err := h.l.history(ctx, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		plan func() (*plan.Plan, error)
		want string
	}{
		"upgrade": {
			plan: func() (*plan.Plan, error) {
				v2 := demoChart(map[string]string{"a.yaml": cm("a"), "c.yaml": cm("c"), "d.yaml": deploy("web"), "e.yaml": cm("e")})
				return h.l.Planner().PlanUpgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, map[string]any{"size": 2})}, hist, PlanOptions{})
			},
			// a changes (size), c exists and is adopted, d is unchanged, e is
			// new, b is deleted and k is kept.
			want: "ConfigMap/a=update ConfigMap/b=delete ConfigMap/c=adopt ConfigMap/e=create ConfigMap/k=no-op Deployment/web=no-op",
		},
		"rollback to the same revision": {
			plan: func() (*plan.Plan, error) {
				return h.l.Planner().PlanRollback(ctx, RollbackRequest{ReleaseName: "web", Namespace: ns, Revision: 1}, hist, PlanOptions{})
			},
			want: "ConfigMap/a=no-op ConfigMap/b=no-op ConfigMap/k=no-op Deployment/web=no-op",
		},
		"uninstall": {
			plan: func() (*plan.Plan, error) {
				return h.l.Planner().PlanUninstall(ctx, UninstallRequest{ReleaseName: "web", Namespace: ns}, hist, PlanOptions{})
			},
			want: "ConfigMap/a=delete ConfigMap/b=delete ConfigMap/k=no-op Deployment/web=delete",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := tc.plan()
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(p); got != tc.want {
				t.Errorf("actions\n got %s\nwant %s", got, tc.want)
			}
			for _, s := range p.Steps() {
				if s.Live != nil && (s.Observed == nil || s.Observed.ResourceVersion == "") {
					t.Errorf("%s: live object without its resourceVersion", s.Ref)
				}
			}
			if p.Cluster != server || p.Release.Base != 1 {
				t.Errorf("plan bound to %q at revision %d", p.Cluster, p.Release.Base)
			}
		})
	}
	if n := len(h.writes()); n != 5 {
		t.Errorf("planning wrote to the cluster: %v", h.writes())
	}
}

// savedUpgrade installs a release, then plans an upgrade of it and saves the
// plan to a file and reads it back, as diff --save-plan and upgrade --use-plan do.
func savedUpgrade(t *testing.T) (*harness, *plan.Plan) {
	t.Helper()
	ctx := context.Background()
	h := newHarness()
	h.l.ClusterServer = server
	v1 := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b")})
	if _, err := h.l.Install(ctx, InstallRequest{ReleaseSpec: spec(v1, nil)}); err != nil {
		t.Fatal(err)
	}
	hist, err := h.l.history(ctx, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	v2 := demoChart(map[string]string{"a.yaml": cm("a"), "c.yaml": cm("c")})
	p, err := h.l.Planner().PlanUpgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v2, map[string]any{"size": 7})}, hist, PlanOptions{ServerDryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := plan.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	read, err := plan.Read(&buf, "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	return h, read
}

func TestExecuteSavedAppliesExactlyThePlan(t *testing.T) {
	h, p := savedUpgrade(t)
	// Rendering again would pick up a changed chart: the plan must not.
	out, err := h.l.ExecuteSaved(context.Background(), SavedPlanRequest{Plan: p, Command: plan.OpUpgrade, ReleaseName: "web", Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if out.Release.Version != 2 || out.Release.Info.Status != release.StatusDeployed {
		t.Errorf("revision %d %s", out.Release.Version, out.Release.Info.Status)
	}
	if got := h.names("ConfigMap"); strings.Join(got, ",") != "a,c" {
		t.Errorf("config maps = %v", got)
	}
	live, _ := h.c.Get(context.Background(), ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"})
	if s := live["data"].(map[string]any)["size"]; s != "7" {
		t.Errorf("size = %v", s)
	}
	if got := h.statuses(t, "web"); fmt.Sprint(got) != "[superseded deployed]" {
		t.Errorf("history = %v", got)
	}
}

func TestExecuteSavedRefusals(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		change func(h *harness)
		req    func(p *plan.Plan) SavedPlanRequest
		is     error
		want   string
	}{
		"object edited": {
			change: func(h *harness) {
				o, _ := h.c.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "a"})
				o.SetLabels(map[string]string{"edited": "yes"})
				if _, err := h.c.Apply(ctx, o, ports.ApplyOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			is: ErrPlanStale, want: "ConfigMap apps/a changed since the plan was made",
		},
		"object deleted": {
			change: func(h *harness) {
				_ = h.c.Delete(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "b"}, "")
			},
			is: ErrPlanStale, want: "ConfigMap apps/b was deleted since the plan was made",
		},
		"object created": {
			change: func(h *harness) {
				o := ports.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": ns}}
				if _, err := h.c.Apply(ctx, o, ports.ApplyOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			is: ErrPlanStale, want: "ConfigMap apps/c was created since the plan was made",
		},
		"release upgraded": {
			change: func(h *harness) {
				v := demoChart(map[string]string{"a.yaml": cm("a"), "b.yaml": cm("b")})
				if _, err := h.l.Upgrade(ctx, UpgradeRequest{ReleaseSpec: spec(v, map[string]any{"size": 3})}); err != nil {
					t.Fatal(err)
				}
			},
			is: ErrPlanStale, want: "the latest revision is now 2, the plan was made at revision 1",
		},
		"other cluster": {
			change: func(h *harness) { h.l.ClusterServer = "https://10.0.0.1:6443" },
			is:     ErrPlanMismatch, want: "made for the cluster at " + server,
		},
		"other release": {
			req: func(p *plan.Plan) SavedPlanRequest {
				return SavedPlanRequest{Plan: p, Command: plan.OpUpgrade, ReleaseName: "api", Namespace: ns}
			},
			is: ErrPlanMismatch, want: "it is for release web in namespace apps, not api in apps",
		},
		"other command": {
			req: func(p *plan.Plan) SavedPlanRequest {
				return SavedPlanRequest{Plan: p, Command: plan.OpRollback, ReleaseName: "web", Namespace: ns}
			},
			is: ErrPlanMismatch, want: `it was made by "upgrade", not "rollback"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h, p := savedUpgrade(t)
			if tc.change != nil {
				tc.change(h)
			}
			req := SavedPlanRequest{Plan: p, Command: plan.OpUpgrade, ReleaseName: "web", Namespace: ns}
			if tc.req != nil {
				req = tc.req(p)
			}
			before := fmt.Sprint(h.statuses(t, "web"), h.names("ConfigMap"))
			_, err := h.l.ExecuteSaved(ctx, req)
			if !errors.Is(err, tc.is) || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Fatalf("error = %v, want %v naming %q", err, tc.is, tc.want)
			}
			if after := fmt.Sprint(h.statuses(t, "web"), h.names("ConfigMap")); after != before {
				t.Errorf("a refused plan changed something: %s -> %s", before, after)
			}
		})
	}
}

func TestPlanInstallCRDsFirst(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	ch := demoChart(map[string]string{
		"crds/crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n  versions:\n  - name: v1\n    served: true\n",
		"w.yaml":        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n{{- if .Capabilities.APIVersions.Has \"example.com/v1/Widget\" }}\nspec:\n  served: yes\n{{- end }}\n",
	})
	p, err := h.l.Planner().PlanInstall(ctx, InstallRequest{ReleaseSpec: spec(ch, nil)}, nil, PlanOptions{ServerDryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(p); got != "CustomResourceDefinition/widgets.example.com=create Widget/w=create" {
		t.Errorf("actions = %s", got)
	}
	w := p.Stages[0].Steps[0]
	if w.Ref.Namespace != ns || !strings.Contains(w.Note, "CRD is installed first") {
		t.Errorf("custom resource step = %+v", w)
	}
	if !strings.Contains(p.Record.Manifest, "served: yes") {
		t.Errorf("rendered without the CRD's API version:\n%s", p.Record.Manifest)
	}
	if len(h.writes()) != 0 {
		t.Errorf("planning wrote: %v", h.writes())
	}
}

func TestPlanUnservedKind(t *testing.T) {
	ctx := context.Background()
	h := newHarness()
	ch := demoChart(map[string]string{"a.yaml": cm("a"), "g.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n"})
	req := InstallRequest{ReleaseSpec: spec(ch, nil)}
	if _, err := h.l.Planner().PlanInstall(ctx, req, nil, PlanOptions{}); err == nil || !errors.Is(err, ports.ErrUnknownKind) {
		t.Errorf("an install of an unserved kind planned: %v", err)
	}
	p, err := h.l.Planner().PlanInstall(ctx, req, nil, PlanOptions{ServerDryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, s := range p.Steps() {
		if s.Ref.Kind == "Gadget" {
			note = s.Note
		}
	}
	if note != unservedNote || len(p.Problems) != 1 || p.Problems[0].Type != plan.ProblemUnserved {
		t.Errorf("note %q, problems %+v", note, p.Problems)
	}
}
