//go:build e2e

package lifecycle

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// helmPeer returns the Helm v3.22.0 binary that hack/helm-peer.sh builds (once, cached).
func helmPeer(t *testing.T) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, "v3.22.0")
}

// helmCommand runs the Helm peer against the test cluster, with homes of its own.
func helmCommand(t *testing.T, helm string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(helm, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	return cmd
}

func runHelm(t *testing.T, helm string, args ...string) string {
	t.Helper()
	cmd := helmCommand(t, helm, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// A release that Helm installed is upgraded and rolled back by kubectl-chart,
// and Helm still reads its history and uninstalls it.
func TestHelmInterop(t *testing.T) {
	t.Parallel()
	helm := helmPeer(t)
	ns := env.Namespace(t)
	chart := demoChart(t)
	runHelm(t, helm, "install", "web", chart, "-n", ns, "--set", "message=from-helm,stuck=true")

	mustRun(t, "upgrade", "web", chart, "-n", ns, "--set", "message=from-us,extraConfig=true,legacyConfig=false", "--wait", "--timeout", "60s")
	if msg, _, _ := unstructured.NestedString(get(t, configMaps, ns, "web-demo").Object, "data", "message"); msg != "from-us" {
		t.Errorf("message after our upgrade = %q", msg)
	}
	if exists(t, configMaps, ns, "web-demo-legacy") {
		t.Error("our upgrade kept an object Helm's revision had and ours dropped")
	}
	// A field Helm wrote (client-side) and our revision drops is removed.
	if sel, found, _ := unstructured.NestedMap(get(t, deployments, ns, "web-demo").Object, "spec", "template", "spec", "nodeSelector"); found {
		t.Errorf("our upgrade kept Helm's node selector %v", sel)
	}
	mustRun(t, "rollback", "web", "-n", ns)
	if msg, _, _ := unstructured.NestedString(get(t, configMaps, ns, "web-demo").Object, "data", "message"); msg != "from-helm" {
		t.Errorf("message after rollback = %q", msg)
	}

	hist := runHelm(t, helm, "history", "web", "-n", ns)
	lines := strings.Split(strings.TrimSpace(hist), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "superseded") || !strings.Contains(lines[2], "superseded") ||
		!strings.Contains(lines[3], "deployed") || !strings.Contains(lines[3], "Rollback to 1") {
		t.Errorf("helm history:\n%s", hist)
	}
	runHelm(t, helm, "upgrade", "web", chart, "-n", ns, "--set", "message=helm-again")
	runHelm(t, helm, "uninstall", "web", "-n", ns)
	if exists(t, configMaps, ns, "web-demo") {
		t.Error("helm uninstall left the release's objects")
	}
}

// What install, upgrade and test print on stdout is what Helm prints, the
// same release in two namespaces differing only where the moment, the
// namespace or generated values must.
func TestOutputMatchesHelm(t *testing.T) {
	t.Parallel()
	helm := helmPeer(t)
	chart := demoChart(t)
	theirs, ours := env.Namespace(t), env.Namespace(t)
	normalize := regexp.MustCompile(`(?m)((?:LAST DEPLOYED|Last Started|Last Completed): *).*$|(password: ).*$|(web-demo-test-)[a-z0-9]{5}$`)
	same := func(step, helmOut, ourOut string) {
		t.Helper()
		norm := func(s, ns string) string {
			return normalize.ReplaceAllString(strings.ReplaceAll(s, ns, "NAMESPACE"), "${1}${2}${3}X")
		}
		if h, o := norm(helmOut, theirs), norm(ourOut, ours); h != o {
			t.Errorf("%s: stdout differs from Helm's\nhelm:\n%s\nkubectl-chart:\n%s", step, h, o)
		}
	}
	for _, step := range [][]string{
		{"install", "web", chart, "--dry-run=server"},
		{"upgrade", "--install", "web", chart},
		{"upgrade", "web", chart, "--set", "message=changed"},
		{"test", "web"},
		{"upgrade", "web", chart, "--hide-notes"},
	} {
		args := append(append([]string(nil), step...), "-n", theirs)
		helmOut := runHelm(t, helm, args...)
		args[len(args)-1] = ours
		// The peer is Helm 3: render and print in its dialect (Helm 4's is
		// the default).
		args = append(args, "--compat", "helm3")
		same(strings.Join(step[:1], " "), helmOut, mustRun(t, args...).out)
	}

	// The live resources of status, with the pods the release's selectors
	// select: the same groups, each with as many objects (and pods).
	shape := func(out string) string {
		t.Helper()
		var st struct {
			Info struct {
				Resources map[string][]struct {
					Kind  string           `json:"kind"`
					Items []map[string]any `json:"items"`
				} `json:"resources"`
			} `json:"info"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status -o json: %v\n%s", err, out)
		}
		var groups []string
		for key, objs := range st.Info.Resources {
			g := fmt.Sprintf("%s:%d", key, len(objs))
			for _, o := range objs {
				if o.Kind == "PodList" {
					g += fmt.Sprintf("(%d pods)", len(o.Items))
				}
			}
			groups = append(groups, g)
		}
		slices.Sort(groups)
		return strings.Join(groups, " ")
	}
	mustRun(t, "upgrade", "web", chart, "-n", ours, "--wait", "--timeout", "60s")
	runHelm(t, helm, "upgrade", "web", chart, "-n", theirs, "--wait", "--timeout", "60s")
	helmStatus := runHelm(t, helm, "status", "web", "-n", theirs, "--show-resources", "-o", "json")
	if h, o := shape(helmStatus), shape(mustRun(t, "status", "web", "-n", ours, "--show-resources", "-o", "json").out); h != o || !strings.Contains(o, "v1/Pod(related):1(2 pods)") {
		t.Errorf("status --show-resources -o json groups:\nhelm:          %s\nkubectl-chart: %s", h, o)
	}
	if out := mustRun(t, "status", "web", "-n", ours, "--show-resources").out; !regexp.MustCompile(`==> v1/Pod\(related\)\nNAME +READY +STATUS +RESTARTS +AGE\nweb-demo-\S+ +1/1 +Running`).MatchString(out) {
		t.Errorf("status --show-resources lacks the related pods:\n%s", out)
	}
}

// Upgrades with --reuse-values, --reset-values, --reset-then-reuse-values,
// nulls and rollbacks leave the same user-supplied and computed values as the
// same sequence does with Helm.
func TestValuesSemanticsMatchHelm(t *testing.T) {
	t.Parallel()
	helm := helmPeer(t)
	demo := demoChart(t)
	extended := filepath.Join(t.TempDir(), "demo")
	if err := os.CopyFS(extended, os.DirFS(demo)); err != nil {
		t.Fatal(err)
	}
	valuesFile := filepath.Join(extended, "values.yaml")
	defaults, err := os.ReadFile(valuesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(valuesFile, append(defaults, "extra:\n  a: 1\n  b: [1, 2]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	theirs, ours := env.Namespace(t), env.Namespace(t)
	for _, step := range [][]string{
		{"install", "v", extended, "--set", "message=one", "--set", "extra.a=5"},
		{"upgrade", "v", extended, "--set", "replicaCount=3"},
		{"upgrade", "v", extended, "--reuse-values", "--set", "extra.b={9}"},
		{"upgrade", "v", extended, "--reset-then-reuse-values", "--set", "message=two"},
		{"upgrade", "v", extended, "--reset-values"},
		{"upgrade", "v", extended, "--set", "extra=null"},
		{"upgrade", "v", extended, "--reuse-values", "--set", "extra.a=null"},
		{"rollback", "v", "2"},
		{"upgrade", "v", demo, "--reuse-values"},
		{"upgrade", "v", extended, "--reset-then-reuse-values"},
		{"upgrade", "v", extended},
	} {
		runHelm(t, helm, append(step, "-n", theirs)...)
		mustRun(t, append(step, "-n", ours)...)
		for _, get := range [][]string{{"get", "values", "v", "-o", "json"}, {"get", "values", "v", "--all", "-o", "json"}} {
			h := runHelm(t, helm, append(get, "-n", theirs)...)
			o := mustRun(t, append(get, "-n", ours)...).out
			if strings.TrimSpace(h) != strings.TrimSpace(o) {
				t.Errorf("after %v, %v:\nhelm:          %s\nkubectl-chart: %s", step, get, h, o)
			}
		}
	}
}

// The same operations leave the same history as with Helm: revisions pruned
// by --history-max when a revision is created (failed ones included), the
// statuses and descriptions of rollbacks, and names re-used after an
// uninstall that kept history.
func TestHistoryMatchesHelm(t *testing.T) {
	t.Parallel()
	helm := helmPeer(t)
	chart := demoChart(t)
	theirs, ours := env.Namespace(t), env.Namespace(t)
	for _, step := range [][]string{
		{"install", "w", chart},
		{"upgrade", "w", chart, "--set", "message=a", "--history-max", "3"},
		{"upgrade", "w", chart, "--set", "message=b", "--history-max", "3"},
		{"upgrade", "w", chart, "--set", "message=c", "--history-max", "3"},
		{"rollback", "w", "3", "--history-max", "3"},
		{"upgrade", "w", chart, "--set", "stuck=true", "--wait", "--timeout", "3s", "--history-max", "3"},
		{"upgrade", "w", chart, "--set", "message=d", "--description", "custom"},
		{"rollback", "w"},
		{"uninstall", "w", "--keep-history"},
		{"upgrade", "--install", "w", chart},
		{"uninstall", "w", "--keep-history"},
		{"install", "w", chart, "--replace"},
		{"upgrade", "w", chart, "--history-max", "2"},
	} {
		args := append(append([]string(nil), step...), "-n", theirs)
		helmErr := helmCommand(t, helm, args...).Run()
		args[len(args)-1] = ours
		r := run(t, nil, args...)
		if (helmErr == nil) != (r.code == 0) {
			t.Fatalf("%v: helm error %v, ours exit %d\n%s", step, helmErr, r.code, r.err)
		}
		h := summarizeHistory(t, runHelm(t, helm, "history", "w", "-n", theirs, "-o", "json"), true)
		o := summarizeHistory(t, mustRun(t, "history", "w", "-n", ours, "-o", "json").out, true)
		if h != o {
			t.Errorf("after %v:\nhelm:          %s\nkubectl-chart: %s", step, h, o)
		}
	}
}

// template --dry-run=server lets lookup read the live cluster, as Helm's
// template does; without it lookup finds nothing.
func TestTemplateLookupMatchesHelm(t *testing.T) {
	t.Parallel()
	helm := helmPeer(t)
	ns := env.Namespace(t)
	chart := t.TempDir()
	writeChart := func(name, body string) {
		t.Helper()
		p := filepath.Join(chart, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeChart("Chart.yaml", "apiVersion: v2\nname: lk\nversion: 0.1.0\n")
	writeChart("templates/cm.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  namespace: {{ dig "metadata" "name" "none" (lookup "v1" "Namespace" "" .Release.Namespace) | quote }}
  missing: {{ lookup "v1" "ConfigMap" .Release.Namespace "nope" | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
`)
	// Helm 3's --validate renders with the cluster's capabilities; lookup stays empty.
	for _, dryRun := range []string{"--dry-run=client", "--dry-run=server", "--validate"} {
		args := []string{"template", "r", chart, "-n", ns, dryRun}
		// The peer is Helm 3: render in its dialect (template's default is Helm 4's).
		h, o := runHelm(t, helm, args...), mustRun(t, append(args, "--compat", "helm3")...).out
		if h != o {
			t.Errorf("template %s:\nhelm:\n%s\nkubectl-chart:\n%s", dryRun, h, o)
		}
		if want := `namespace: "` + ns + `"`; dryRun == "--dry-run=server" && !strings.Contains(o, want) {
			t.Errorf("template %s did not read the cluster:\n%s", dryRun, o)
		}
	}
	// Helm 4's --validate is a deprecated --dry-run=server: lookup reads the cluster.
	args := []string{"template", "r", chart, "-n", ns, "--validate"}
	cmd := helmCommand(t, helmPeerVersion(t, helm4), args...)
	var helmErr strings.Builder
	cmd.Stderr = &helmErr
	h, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, helmErr.String())
	}
	o := mustRun(t, append(args, "--compat", "helm4")...)
	if string(h) != o.out || helmErr.String() != o.err || !strings.Contains(o.out, `namespace: "`+ns+`"`) {
		t.Errorf("template --validate, Helm 4:\nhelm:\n%s%s\nkubectl-chart:\n%s%s", h, helmErr.String(), o.out, o.err)
	}
}
