package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/domain/stackrun"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// stackChart writes a chart of a ConfigMap and a Secret named after the release.
func stackChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	files := map[string]string{
		"Chart.yaml":            "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"values.yaml":           "size: 1\npassword: s3cret\n",
		"templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  size: {{ .Values.size | quote }}\n",
		"templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  password: {{ .Values.password | b64enc }}\n",
	}
	writeFiles(t, dir, files)
	return dir
}

// stackFixture is db in context east, api needing it, web needing api, in prod.
func stackFixture(chart string) stack.Stack {
	r := func(kctx, ns, name string, needs ...stack.ID) stack.Release {
		return stack.Release{ID: stack.ID{KubeContext: kctx, Namespace: ns, Name: name}, Chart: chart, Installed: true, Needs: needs}
	}
	db := stack.ID{KubeContext: "east", Namespace: "infra", Name: "db"}
	api := stack.ID{Namespace: "prod", Name: "api"}
	return stack.Stack{Environment: "default", Releases: []stack.Release{
		r("", "prod", "web", api), r("", "prod", "api", db), r("east", "infra", "db"),
	}}
}

func fixedStack(st stack.Stack) stackLoader {
	return func(context.Context, Factory, *stackFlags) (stack.Stack, error) { return st, nil }
}

type stackCmd func(Factory, genericiooptions.IOStreams, stackLoader) *cobra.Command

func runStack(t *testing.T, f *testFactory, st stack.Stack, build stackCmd, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := build(f, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, fixedStack(st))
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func stackFactory(t *testing.T) (*testFactory, *testFactory) {
	t.Helper()
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	return f, f.withContext("east", "infra")
}

func TestStackDiffSaveApply(t *testing.T) {
	f, east := stackFactory(t)
	st := stackFixture(stackChart(t))
	planFile := filepath.Join(t.TempDir(), "stack.plan")
	out, stderr, err := runStack(t, f, st, newStackDiffCmd, "--detailed-exitcode", "--save-plan", planFile)
	if exitCode(err) != diffExitChanges {
		t.Fatalf("diff: %v\n%s", err, stderr)
	}
	for _, want := range []string{"Release east/infra/db (install)", "Release prod/web (install)", "ConfigMap prod/api (create)",
		"Plan: 3 to install, 0 to upgrade, 0 to uninstall, 0 unchanged (3 releases in 3 waves)."} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "czNjcmV0") || !strings.Contains(out, "password: '***'") {
		t.Errorf("diff prints a Secret's value:\n%s", out)
	}
	if h := history(t, f, "prod", "api"); h != nil {
		t.Fatalf("diff changed something: %v", h)
	}
	out, stderr, err = runStack(t, f, st, newStackApplyCmd, "--use-plan", planFile)
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	for _, want := range []string{"east/infra/db\tinstall\tapplied", "prod/web     \tinstall\tapplied"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if h := history(t, east, "infra", "db"); len(h) != 1 || h[0] != "deployed" {
		t.Errorf("db in east: %v", h)
	}
	// Applying the same plan again is refused: the releases changed since.
	_, _, err = runStack(t, f, st, newStackApplyCmd, "--use-plan", planFile)
	if err == nil || !strings.Contains(err.Error(), "the plan is out of date, nothing was changed") || !strings.Contains(err.Error(), "release east/infra/db: ConfigMap infra/db was created since the plan was made") {
		t.Errorf("second apply of the plan: %v", err)
	}
	out, _, err = runStack(t, f, st, newStackDiffCmd, "--detailed-exitcode")
	if err != nil || !strings.Contains(out, "0 to install, 0 to upgrade, 0 to uninstall, 3 unchanged") {
		t.Errorf("diff after apply: %v\n%s", err, out)
	}
}

func TestStackApplyStaleObjectRefused(t *testing.T) {
	f, _ := stackFactory(t)
	st := stackFixture(stackChart(t))
	if _, stderr, err := runStack(t, f, st, newStackApplyCmd); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	for i := range st.Releases {
		st.Releases[i].Set = []stack.SetValue{{Name: "size", Value: "2"}}
	}
	planFile := filepath.Join(t.TempDir(), "stack.plan")
	if _, _, err := runStack(t, f, st, newStackDiffCmd, "--save-plan", planFile); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	live, err := f.cluster.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "prod", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	live.SetLabels(map[string]string{"edited": "by-hand"})
	if _, err := f.cluster.ApplyAs(ctx, "kubectl-edit", live, ports.ApplyOptions{ForceConflicts: true}); err != nil {
		t.Fatal(err)
	}
	_, _, err = runStack(t, f, st, newStackApplyCmd, "--use-plan", planFile)
	if err == nil || !strings.Contains(err.Error(), "release prod/web: ConfigMap prod/web changed since the plan was made") {
		t.Fatalf("apply of a stale plan: %v", err)
	}
	for _, name := range []string{"web", "api"} {
		if h := history(t, f, "prod", name); len(h) != 1 {
			t.Errorf("%s has %d revisions after a refused plan", name, len(h))
		}
	}
}

func TestStackApplyFailureAndEvents(t *testing.T) {
	f, _ := stackFactory(t)
	st := stackFixture(stackChart(t))
	st.Releases[1].Chart = filepath.Join(t.TempDir(), "nowhere") // api's chart does not load
	_, _, err := runStack(t, f, st, newStackApplyCmd)
	if err == nil || !strings.Contains(err.Error(), "release prod/api: chart ") {
		t.Fatalf("a chart that does not load must fail the plan: %v", err)
	}
	if h := history(t, f, "prod", "web"); h != nil {
		t.Errorf("a plan that failed changed web: %v", h)
	}
	st = stackFixture(stackChart(t))
	st.Releases[2].ID.KubeContext = "west"
	st.Releases[1].Needs[0].KubeContext = "west"
	_, _, err = runStack(t, f, st, newStackApplyCmd)
	if err == nil || !strings.Contains(err.Error(), `release west/infra/db: kube context "west" is not in the kubeconfig`) {
		t.Fatalf("an unknown context must fail the plan: %v", err)
	}
	st = stackFixture(stackChart(t))
	out, _, err := runStack(t, f, st, newStackApplyCmd, "--json-events", "--concurrency", "1")
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e stackrun.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON event: %q", line)
		}
		if e.Type == stackrun.EventStart {
			starts = append(starts, e.Release.Name)
		}
	}
	if strings.Join(starts, ",") != "db,api,web" {
		t.Errorf("started %v, want db, api, web", starts)
	}
}

func TestStackStatusDriftDestroy(t *testing.T) {
	f, east := stackFactory(t)
	st := stackFixture(stackChart(t))
	if _, stderr, err := runStack(t, f, st, newStackApplyCmd); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	ctx := context.Background()
	if err := east.cluster.Delete(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "infra", Name: "db"}, ""); err != nil {
		t.Fatal(err)
	}
	out, _, err := runStack(t, f, st, newStackStatusCmd)
	if err != nil {
		t.Fatal(err)
	}
	want := `CONTEXT  	NAMESPACE	NAME	REVISION	STATUS  	DRIFT      
(current)	prod     	web 	1       	deployed	none       
(current)	prod     	api 	1       	deployed	none       
east     	infra    	db  	1       	deployed	1 object(s)
`
	if out != want {
		t.Errorf("status:\n%s\nwant:\n%s", out, want)
	}
	out, _, err = runStack(t, f, st, newStackDriftCmd, "--detailed-exitcode")
	if exitCode(err) != driftExitDrifted || !strings.Contains(out, "Release east/infra/db:") {
		t.Errorf("drift: %v\n%s", err, out)
	}
	if _, _, err := runStack(t, f, st, newStackDriftCmd, "--correct"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runStack(t, f, st, newStackDriftCmd, "--detailed-exitcode"); err != nil {
		t.Errorf("drift after --correct: %v", err)
	}
	out, _, err = runStack(t, f, st, newStackDestroyCmd, "--json-events", "--concurrency", "1")
	if err != nil {
		t.Fatal(err)
	}
	if i, j, k := strings.Index(out, `"name":"web"},"type":"start"`), strings.Index(out, `"name":"api"},"type":"start"`), strings.Index(out, `"name":"db"},"type":"start"`); i < 0 || i > j || j > k {
		t.Errorf("destroy order is not web, api, db:\n%s", out)
	}
	if h := history(t, east, "infra", "db"); h != nil {
		t.Errorf("db still has revisions: %v", h)
	}
}
