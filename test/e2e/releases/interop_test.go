//go:build e2e

package releases

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/configmap"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden Helm records in adapters/releasestore/secret/testdata from real Helm")

// sameJSON fails unless two JSON documents are equal as values.
func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: kubectl-chart printed invalid JSON: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: helm printed invalid JSON: %v\n%s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs from Helm's:\nkubectl-chart: %s\nhelm:          %s", what, got, want)
	}
}

// ages are the AGE cells of a resource table, which differ by the second
// between two runs.
var ages = regexp.MustCompile(`(?m)^(web-greeting +\d+ +)\S+$`)

func sameText(t *testing.T, what, got, want string) {
	t.Helper()
	got, want = ages.ReplaceAllString(got, "${1}AGE"), ages.ReplaceAllString(want, "${1}AGE")
	if got != want {
		t.Errorf("%s differs from Helm's:\nkubectl-chart:\n%s\nhelm:\n%s", what, got, want)
	}
}

// Each Helm major beside kubectl-chart in its dialect (where the two Helms'
// read commands differ, --compat follows the one named).
func TestHelmInterop(t *testing.T) {
	peers := map[string]string{"helm3": "v3.22.0", "helm4": "v4.3.1"}
	for _, dialect := range []string{"helm3", "helm4"} {
		for _, driver := range []string{"secret", "configmap"} {
			t.Run(dialect+"/"+driver, func(t *testing.T) { helmInterop(t, peers[dialect], dialect, driver) })
		}
	}
}

func helmInterop(t *testing.T, version, dialect, driver string) {
	r := newRunner(t)
	r.helm = helmPeerVersion(t, version)
	r.env = append(r.env, "HELM_DRIVER="+driver, "KUBECTL_CHART_STORAGE="+driver, "KUBECTL_CHART_COMPAT="+dialect)
	ns := env.Namespace(t)
	chart := filepath.Join(prereq.ModuleRoot(), "test", "e2e", "releases", "testdata", "chart")

	// Helm writes, kubectl-chart reads.
	r.helmRun("install", "web", chart, "-n", ns, "--set", "greeting=hi", "--set", "nested.sizes={4,5}", "--labels", "team=payments")
	r.helmRun("upgrade", "web", chart, "-n", ns, "--set", "greeting=bye")
	r.helmRun("install", "other", chart, "-n", ns)
	both := func(args ...string) (string, string) {
		t.Helper()
		return r.kc(append(args, "-n", ns)...), r.helmRun(append(args, "-n", ns)...)
	}
	listAll := []string{"list", "--all", "-o", "json"}
	if dialect == "helm4" {
		listAll = []string{"list", "--pending", "--failed", "--deployed", "-o", "json"} // Helm 4 has no --all
	}
	for _, args := range [][]string{
		{"list", "-o", "json"},
		listAll,
		{"list", "--superseded", "-o", "json"},
		{"list", "-l", "team=payments", "-o", "json"},
		{"history", "web", "-o", "json"},
		{"get", "values", "web", "-o", "json"},
		{"get", "values", "web", "--revision", "1", "-o", "json"},
		{"get", "values", "web", "--all", "-o", "json"},
		{"get", "metadata", "web", "-o", "json"},
		{"status", "web", "-o", "json"},
	} {
		got, want := both(args...)
		sameJSON(t, strings.Join(args, " "), got, want)
	}
	for _, args := range [][]string{
		{"list", "-q"},
		{"get", "values", "web"},
		{"get", "values", "web", "--all"},
		{"get", "manifest", "web"},
		{"get", "manifest", "web", "--revision", "1"},
		{"get", "notes", "web"},
		{"get", "hooks", "web"},
		{"get", "metadata", "web"},
		{"get", "all", "web"},
		{"status", "web"},
	} {
		got, want := both(args...)
		sameText(t, strings.Join(args, " "), got, want)
	}
	// Tables are Helm's, byte for byte (the same records: the same times).
	for _, args := range [][]string{{"history", "web"}, {"list"}, {"list", "--no-headers", "-d", "-r"}} {
		got, want := both(args...)
		if slices.Contains(args, "-d") {
			// Releases deployed in the same second: Helm's order among them is
			// Go's map order, ours by name (README).
			got, want = sameSecondSorted(got), sameSecondSorted(want)
		}
		if got != want {
			t.Errorf("%s differs from Helm's:\nkubectl-chart:\n%q\nhelm:\n%q", strings.Join(args, " "), got, want)
		}
	}

	// Live resources: the server's tables, grouped as Helm groups them.
	status := r.kc("status", "web", "-n", ns, "--show-resources")
	for _, want := range []string{"RESOURCES:\n==> v1/ConfigMap\n", "NAME", "web-greeting", "TEST SUITE: None"} {
		if !strings.Contains(status, want) {
			t.Errorf("status --show-resources lacks %q:\n%s", want, status)
		}
	}
	var withResources struct {
		Info struct {
			Resources map[string][]map[string]any `json:"resources"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(r.kc("status", "web", "-n", ns, "--show-resources", "-o", "json")), &withResources); err != nil {
		t.Fatal(err)
	}
	if cms := withResources.Info.Resources["v1/ConfigMap"]; len(cms) != 1 || cms[0]["metadata"].(map[string]any)["name"] != "web-greeting" {
		t.Errorf("status --show-resources -o json resources = %v", withResources.Info.Resources)
	}

	if *updateGolden && driver == "secret" {
		writeGolden(t, ns)
	}

	// kubectl-chart writes, Helm reads and upgrades.
	var store ports.ReleaseStore = secret.New(clientset(t))
	if driver == "configmap" {
		store = configmap.New(clientset(t))
	}
	ours := porttest.Release(ns, "ours", 1, release.StatusDeployed)
	ours.Chart.Metadata.Name = "greeter"
	ours.Manifest = "---\n# Source: greeter/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ours-greeting\ndata:\n  greeting: \"hi\"\n"
	if err := store.Create(context.Background(), ours); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"list", "--filter", "ours", "-o", "json"},
		{"history", "ours", "-o", "json"},
		{"get", "values", "ours", "-o", "json"},
		{"get", "values", "ours", "--all", "-o", "json"},
		{"status", "ours", "-o", "json"},
	} {
		got, want := both(args...)
		sameJSON(t, strings.Join(args, " "), got, want)
	}
	var helmList []map[string]any
	if err := json.Unmarshal([]byte(r.helmRun("list", "-n", ns, "--filter", "ours", "-o", "json")), &helmList); err != nil {
		t.Fatal(err)
	}
	if len(helmList) != 1 || helmList[0]["chart"] != "greeter-1.1.0" || helmList[0]["status"] != "deployed" || helmList[0]["app_version"] != "2.4.1" {
		t.Errorf("helm list shows our record as %v", helmList)
	}
	sameJSON(t, "helm get values ours", r.helmRun("get", "values", "ours", "-n", ns, "-o", "json"), `{"replicas":1}`)
	sameText(t, "helm get manifest ours", r.helmRun("get", "manifest", "ours", "-n", ns), ours.Manifest+"\n")
	r.helmRun("upgrade", "ours", chart, "-n", ns)
	got, want := both("history", "ours", "-o", "json")
	sameJSON(t, "history after helm upgraded our release", got, want)
	if !strings.Contains(got, `"status":"superseded"`) {
		t.Errorf("helm upgrade did not supersede our revision: %s", got)
	}
}

// writeGolden stores the Secrets Helm wrote, as testdata for the secret store's
// unit tests.
func writeGolden(t *testing.T, ns string) {
	dir := filepath.Join(prereq.ModuleRoot(), "adapters", "releasestore", "secret", "testdata", "helm-v3.22.0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	list, err := clientset(t).CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=web"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Items {
		out := corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: "golden", Labels: s.Labels},
			Type:       s.Type,
			Data:       s.Data,
		}
		b, err := yaml.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name+".yaml"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sameSecondSorted sorts each run of a `list --no-headers -d` table's rows
// whose update time (the fourth column) falls in the same second.
func sameSecondSorted(table string) string {
	rows := strings.SplitAfter(table, "\n")
	second := func(row string) string {
		cols := strings.Split(row, "\t")
		if len(cols) < 4 {
			return row
		}
		at, _, _ := strings.Cut(cols[3], ".")
		return at
	}
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && second(rows[j]) == second(rows[i]) {
			j++
		}
		slices.Sort(rows[i:j])
		i = j
	}
	return strings.Join(rows, "")
}
