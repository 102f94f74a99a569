package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

// Every command that writes objects or dry-run applies them does so as
// --field-manager, Helm's manager when not given: installs, upgrades,
// rollbacks, tests (their hook pods), drift corrections and the dry runs of
// diffs, so that a diff shows what the apply will meet.
func TestFieldManagerFlag(t *testing.T) {
	install := []string{"install", "web", "{chart}"}
	tests := map[string]struct {
		setup [][]string
		args  []string
		// drift changes the greeting as another manager before args.
		drift bool
		want  string
		// written is the object whose managers are checked (default: the
		// ConfigMap); none for dry runs.
		written *memcluster.Selector
	}{
		"install":                  {args: install, want: ports.DefaultFieldManager},
		"install --field-manager":  {args: append(slices.Clone(install), "--field-manager", "mine"), want: "mine"},
		"install --dry-run=server": {args: append(slices.Clone(install), "--dry-run=server", "--field-manager", "mine"), want: "mine"},
		"upgrade --field-manager":  {setup: [][]string{install}, args: []string{"upgrade", "web", "{chart}", "--set", "greeting=hi", "--field-manager", "mine"}, want: "mine"},
		"rollback --field-manager": {setup: [][]string{install, {"upgrade", "web", "{chart}", "--set", "greeting=hi"}}, args: []string{"rollback", "web", "1", "--field-manager", "mine"}, want: "mine"},
		"test --field-manager": {setup: [][]string{install}, args: []string{"test", "web", "--field-manager", "mine"}, want: "mine",
			written: &memcluster.Selector{Kind: "Pod", Name: "web-test-greeting"}},
		"diff upgrade --field-manager": {setup: [][]string{install}, args: []string{"diff", "upgrade", "web", "{chart}", "--set", "greeting=hi", "--field-manager", "mine"}, want: "mine"},
		"drift --correct":              {setup: [][]string{install}, drift: true, args: []string{"drift", "web", "--correct", "--field-manager", "mine"}, want: "mine"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			chart := writeDemoChart(t)
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			resolve := func(args []string) []string {
				out := slices.Clone(args)
				for i, a := range out {
					out[i] = strings.ReplaceAll(a, "{chart}", chart)
				}
				return out
			}
			for _, s := range tc.setup {
				if _, stderr, err := runLifecycle(t, f, resolve(s)...); err != nil {
					t.Fatalf("%v: %v\n%s", s, err, stderr)
				}
			}
			if tc.drift {
				cm := ports.Object{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "web-config", "namespace": "default"}, "data": map[string]any{"greeting": "edited"}}
				if _, err := f.cluster.ApplyAs(context.Background(), "kubectl-edit", cm, ports.ApplyOptions{ForceConflicts: true}); err != nil {
					t.Fatal(err)
				}
			}
			f.cluster.ResetCalls()
			if _, stderr, err := runLifecycle(t, f, resolve(tc.args)...); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			calls := f.cluster.Calls(memcluster.VerbApply, memcluster.VerbInstallCRD)
			if len(calls) == 0 {
				t.Fatal("no object was applied")
			}
			for _, c := range calls {
				if c.Manager != tc.want {
					t.Errorf("%s as %q, want %q", c, c.Manager, tc.want)
				}
			}
			if tc.args[0] == "diff" || slices.Contains(tc.args, "--dry-run=server") {
				return
			}
			sel := memcluster.Selector{Kind: "ConfigMap", Name: "web-config"}
			if tc.written != nil {
				sel = *tc.written
			}
			objs := f.cluster.Objects(sel)
			if len(objs) != 1 || !slices.Contains(porttest.ManagersOf(objs[0]), tc.want+"/Apply") {
				t.Fatalf("%s: %d objects, want one applied by %s", sel.Name, len(objs), tc.want)
			}
			if got := porttest.ManagersOf(objs[0]); slices.ContainsFunc(got, func(m string) bool { return m != tc.want+"/Apply" && !strings.HasPrefix(m, "kubectl-edit/") }) {
				t.Errorf("managers of %s = %v, want %s's apply alone", sel.Name, got, tc.want)
			}
		})
	}
}

// A --field-manager the API server would refuse is refused first.
func TestFieldManagerFlagRefused(t *testing.T) {
	tests := map[string]struct{ manager, err string }{
		"empty":         {manager: "", err: "--field-manager must not be empty"},
		"too long":      {manager: strings.Repeat("m", 129), err: "must have at most 128 bytes"},
		"not printable": {manager: "a\tb", err: "must contain only printable characters"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			for _, args := range [][]string{
				{"install", "web", writeDemoChart(t)},
				{"uninstall", "web"},
				{"drift", "web"},
			} {
				_, _, err := runLifecycle(t, f, append(args, "--field-manager="+tc.manager)...)
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s: %v, want %q", args[0], err, tc.err)
				}
			}
			if calls := f.cluster.Calls(memcluster.VerbApply); len(calls) > 0 {
				t.Errorf("applied before refusing: %v", calls)
			}
		})
	}
}

// The drift table says when the manager that changed a field is the
// release's own ("helm" is Helm's and ours): its name alone would not.
func TestDriftTableNamesTheRelease(t *testing.T) {
	tests := map[string]struct{ writer, want string }{
		"helm, the release's manager": {writer: "helm", want: "helm (this release)"},
		"another manager":             {writer: "kubectl-edit", want: "kubectl-edit"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
			if _, stderr, err := runLifecycle(t, f, "install", "web", writeDemoChart(t)); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			ctx := context.Background()
			live, err := f.cluster.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "web-config"})
			if err != nil {
				t.Fatal(err)
			}
			md := live["metadata"].(map[string]any)
			for _, k := range []string{"managedFields", "resourceVersion", "uid", "creationTimestamp"} {
				delete(md, k)
			}
			live["data"] = map[string]any{"greeting": "edited"}
			if _, err := f.cluster.ApplyAs(ctx, tc.writer, live, ports.ApplyOptions{ForceConflicts: true}); err != nil {
				t.Fatal(err)
			}
			out, _, err := runLifecycle(t, f, "drift", "web")
			if err != nil {
				t.Fatal(err)
			}
			var row string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, ".data.greeting") {
					row = l
				}
			}
			fields := strings.Split(row, "   ")
			var cells []string
			for _, c := range fields {
				if c = strings.TrimSpace(c); c != "" {
					cells = append(cells, c)
				}
			}
			if len(cells) != 6 || cells[4] != tc.want {
				t.Errorf("drift row %q: CHANGED BY %v, want %q\n%s", row, cells, tc.want, out)
			}
		})
	}
}
