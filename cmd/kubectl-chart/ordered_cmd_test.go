package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// writeOrderedChart writes a chart with resource groups: queue, then app
// (depending on queue, with a readiness timeout), then an object outside
// groups; cyclic makes queue depend on app too.
func writeOrderedChart(t *testing.T, cyclic bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ordered")
	queueDeps := ""
	if cyclic {
		queueDeps = "    helm.sh/depends-on/resource-groups: '[\"app\"]'\n"
	}
	files := map[string]string{
		"Chart.yaml":           "apiVersion: v2\nname: ordered\nversion: 0.1.0\n",
		"templates/queue.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: queue\n  annotations:\n    helm.sh/resource-group: queue\n" + queueDeps + "data:\n  k: v\n",
		"templates/app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  annotations:\n    helm.sh/resource-group: app\n" +
			"    helm.sh/depends-on/resource-groups: '[\"queue\"]'\n    helm.sh/readiness-timeout: 30s\ndata:\n  k: v\n",
		"templates/plain.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: plain\nspec:\n  ports: [{port: 80}]\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOrderedCommands(t *testing.T) {
	f := newTestFactory(t, genericclioptions.NewConfigFlags(true))
	chart := writeOrderedChart(t, false)

	out, _, err := runLifecycle(t, f, "template", "web", chart, "--graph")
	want := `sequenced (HIP-0025): the chart declares resource groups or subchart dependencies
STAGE 1  [ConfigMap]  ordered: resource group queue  then wait until ready
  ConfigMap queue
STAGE 2  [ConfigMap]  ordered: resource group app  then wait until ready (at most 30s)
  ConfigMap app
STAGE 3  [Service]  ordered: objects outside resource groups
  Service plain
`
	if err != nil || out != want {
		t.Errorf("template --graph: %v\n%s\nwant:\n%s", err, out, want)
	}
	out, _, err = runLifecycle(t, f, "template", "web", chart, "--graph=dot")
	for _, w := range []string{"digraph stages {", `label="ordered: resource group app";`, `s1 -> s2 [label="ready"];`, `s3 [label="Service\nService plain"];`} {
		if err != nil || !strings.Contains(out, w) {
			t.Errorf("template --graph=dot: %v\n%s\nwant %q", err, out, w)
		}
	}
	if _, _, err := runLifecycle(t, f, "template", "web", chart, "--graph=svg"); err == nil || err.Error() != `invalid --graph "svg": want text or dot` {
		t.Errorf("--graph=svg: %v", err)
	}
	out, _, err = runLifecycle(t, f, "template", "web", chart)
	if err != nil || !strings.Contains(out, `helm.sh/depends-on/resource-groups: '["queue"]'`) || strings.Contains(out, "STAGE") {
		t.Errorf("template without --graph: %v\n%s", err, out)
	}

	if _, _, err := runLifecycle(t, f, "install", "web", chart, "-n", "prod", "--wait=ordered", "--timeout", "5s"); err != nil {
		t.Fatal(err)
	}
	if got := history(t, f, "prod", "web"); len(got) != 1 || got[0] != release.StatusDeployed {
		t.Errorf("history: %v", got)
	}
	out, _, err = runLifecycle(t, f, "diff", "upgrade", "web", chart, "-n", "prod", "--graph")
	if err != nil || !strings.Contains(out, "STAGE 2  [ConfigMap]  ordered: resource group app  then wait until ready (at most 30s)\n  ConfigMap prod/app (no-op)\n") {
		t.Errorf("diff upgrade --graph: %v\n%s", err, out)
	}

	cyclic := writeOrderedChart(t, true)
	_, _, err = runLifecycle(t, f, "install", "other", cyclic, "-n", "prod")
	if err == nil || !strings.Contains(err.Error(), "resource groups of chart ordered depend on each other in a cycle: app -> queue -> app") {
		t.Errorf("install of a cycle: %v", err)
	}
	out, _, err = runLifecycle(t, f, "lint", cyclic)
	if err == nil || !strings.Contains(out, "[ERROR] templates/: resource sequencing: resource groups of chart ordered depend on each other in a cycle: app -> queue -> app") {
		t.Errorf("lint of a cycle: %v\n%s", err, out)
	}
}
