//go:build e2e

package stacks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// stackRun runs the program and Helm v4.3.1 on the two control planes, as
// kube contexts stacks-a and stacks-b of one kubeconfig, with the state file
// of testdata in namespaces of its own.
type stackRun struct {
	t          *testing.T
	kubeconfig string
	helm       string
	nsA, nsB   string
	env        []string
}

func newStackRun(t *testing.T) *stackRun {
	t.Helper()
	r := &stackRun{t: t, helm: prereq.HelmPeer(t, "v4.3.1"), nsA: env.Namespace(t), nsB: second.Namespace(t)}
	r.kubeconfig = mergeKubeconfigs(t, map[string]string{"stacks-a": env.Kubeconfig(), "stacks-b": second.Kubeconfig()})
	home := t.TempDir()
	r.env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"KUBECONFIG="+r.kubeconfig, "STACKS_NS_A="+r.nsA, "STACKS_NS_B="+r.nsB)
	return r
}

// mergeKubeconfigs writes one kubeconfig whose context NAME is the current
// context of the kubeconfig at each path.
func mergeKubeconfigs(t *testing.T, paths map[string]string) string {
	t.Helper()
	out := clientcmdapi.NewConfig()
	for name, path := range paths {
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cur := cfg.Contexts[cfg.CurrentContext]
		out.Clusters[name] = cfg.Clusters[cur.Cluster]
		out.AuthInfos[name] = cfg.AuthInfos[cur.AuthInfo]
		out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	out.CurrentContext = "stacks-a"
	file := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*out, file); err != nil {
		t.Fatal(err)
	}
	return file
}

// stack runs `kubectl chart stack ARGS -f testdata/helmfile.yaml.gotmpl`
// (without -f when ARGS apply a saved plan, which decided the file); code is
// its exit status.
func (r *stackRun) stack(args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	full := append([]string{"stack"}, args...)
	if !slices.Contains(args, "--use-plan") {
		full = append(full, "-f", filepath.Join("testdata", "helmfile.yaml.gotmpl"))
	}
	return r.exec(bin, full...)
}

func (r *stackRun) exec(program string, args ...string) (string, string, int) {
	r.t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(program, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = r.env, &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	case err != nil:
		r.t.Fatalf("%s %v: %v", program, args, err)
	}
	return out.String(), errOut.String(), 0
}

// must runs a stack command that must succeed.
func (r *stackRun) must(args ...string) string {
	r.t.Helper()
	out, errOut, code := r.stack(args...)
	if code != 0 {
		r.t.Fatalf("stack %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	return out
}

// helmReleases is what Helm v4.3.1 lists in a context and namespace: name
// to "revision status".
func (r *stackRun) helmReleases(kubeContext, ns string) map[string]string {
	r.t.Helper()
	out, errOut, code := r.exec(r.helm, "list", "--kube-context", kubeContext, "-n", ns, "-o", "json")
	if code != 0 {
		r.t.Fatalf("helm list: %s", errOut)
	}
	var rows []struct {
		Name     string `json:"name"`
		Revision string `json:"revision"`
		Status   string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		r.t.Fatalf("helm list: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, row := range rows {
		got[row.Name] = row.Revision + " " + row.Status
	}
	return got
}

// all is every release of the state file, in Helm's words, per context.
func (r *stackRun) all() map[string]map[string]string {
	return map[string]map[string]string{"stacks-a": r.helmReleases("stacks-a", r.nsA), "stacks-b": r.helmReleases("stacks-b", r.nsB)}
}

func each(names []string, v string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = v
	}
	return out
}

var (
	inA = []string{"db", "cache", "queue", "api", "worker", "web"}
	inB = []string{"metrics", "logs", "ingest", "edge", "report", "dash"}
)

func (r *stackRun) expect(want map[string]map[string]string) {
	r.t.Helper()
	got := r.all()
	for kctx, rels := range want {
		for name, v := range rels {
			if got[kctx][name] != v {
				r.t.Errorf("helm v4.3.1 reads %s %s as %q, want %q", kctx, name, got[kctx][name], v)
			}
		}
	}
}

func clientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startOrder is the order of the releases' start events in --json-events.
func startOrder(t *testing.T, out string) []string {
	t.Helper()
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type    string `json:"type"`
			Release struct {
				Name string `json:"name"`
			} `json:"release"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON event: %q", line)
		}
		if e.Type == "start" {
			order = append(order, e.Release.Name)
		}
	}
	return order
}

func before(t *testing.T, order []string, first, then string) {
	t.Helper()
	if i, j := slices.Index(order, first), slices.Index(order, then); i < 0 || j < 0 || i > j {
		t.Errorf("%s must start before %s: %v", first, then, order)
	}
}

// TestStack runs the flows in order on one stack of 12 releases
// across two control planes.
func TestStack(t *testing.T) {
	r := newStackRun(t)
	ctx := context.Background()
	planFile := filepath.Join(t.TempDir(), "stack.plan")

	// diff → save → apply exactly.
	out, errOut, code := r.stack("diff", "--detailed-exitcode", "--save-plan", planFile)
	if code != 2 || !strings.Contains(out, "Plan: 12 to install, 0 to upgrade, 0 to uninstall, 0 unchanged") {
		t.Fatalf("diff: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "czNjcmV0") {
		t.Errorf("diff prints a Secret's value")
	}
	out = r.must("apply", "--use-plan", planFile, "--json-events", "--concurrency", "3")
	order := startOrder(t, out)
	before(t, order, "db", "api")
	before(t, order, "api", "worker")
	before(t, order, "web", "edge") // across contexts
	before(t, order, "db", "ingest")
	r.expect(map[string]map[string]string{"stacks-a": each(inA, "1 deployed"), "stacks-b": each(inB, "1 deployed")})
	if _, _, code := r.stack("diff", "--detailed-exitcode"); code != 0 {
		t.Errorf("diff after apply: exit %d, want 0", code)
	}

	// An object changed between save and apply: refused by name, nothing changed.
	r.must("diff", "--state-values-set", "size=2", "--save-plan", planFile)
	c := clientFor(t, env.Kubeconfig())
	cm, err := c.CoreV1().ConfigMaps(r.nsA).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Labels = map[string]string{"edited": "by-hand"}
	if _, err := c.CoreV1().ConfigMaps(r.nsA).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = r.stack("apply", "--use-plan", planFile)
	if code == 0 || !strings.Contains(errOut, "the plan is out of date, nothing was changed") || !strings.Contains(errOut, "ConfigMap "+r.nsA+"/web changed since the plan was made") {
		t.Errorf("apply of a stale plan: exit %d\n%s", code, errOut)
	}
	r.expect(map[string]map[string]string{"stacks-a": each(inA, "1 deployed"), "stacks-b": each(inB, "1 deployed")})

	// -l applies a subset: only the frontend releases get size 3.
	r.must("apply", "-l", "tier=frontend", "--state-values-set", "size=3")
	r.expect(map[string]map[string]string{
		"stacks-a": {"web": "2 deployed", "api": "1 deployed", "db": "1 deployed"},
		"stacks-b": {"edge": "2 deployed", "dash": "2 deployed", "report": "1 deployed"},
	})

	// A failing release stops its dependents only.
	out, errOut, code = r.stack("apply", "--state-values-set", "brokenApi=true")
	if code != 1 {
		t.Fatalf("apply with a broken api: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"api", "failed", "worker", "not started", "stacks-a/" + r.nsA + "/api did not succeed"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	r.expect(map[string]map[string]string{
		"stacks-a": {"api": "2 failed", "worker": "1 deployed", "db": "1 deployed"},
		"stacks-b": {"edge": "2 deployed", "ingest": "1 deployed"},
	})
	r.must("apply") // api back to the chart that works

	// installed: false uninstalls.
	r.must("apply", "--state-values-set", "removeDash=true")
	if got := r.helmReleases("stacks-b", r.nsB); got["dash"] != "" {
		t.Errorf("dash still listed by helm: %q", got["dash"])
	}

	// Drift across the stack found and corrected.
	if err := clientFor(t, second.Kubeconfig()).CoreV1().ConfigMaps(r.nsB).Delete(ctx, "logs", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code = r.stack("drift", "--detailed-exitcode", "--state-values-set", "removeDash=true")
	if code != 2 || !strings.Contains(out, "logs") {
		t.Errorf("drift: exit %d\n%s", code, out)
	}
	r.must("drift", "--correct", "--state-values-set", "removeDash=true")
	if _, _, code := r.stack("drift", "--detailed-exitcode", "--state-values-set", "removeDash=true"); code != 0 {
		t.Errorf("drift after --correct: exit %d", code)
	}
	out = r.must("status", "--state-values-set", "removeDash=true")
	if !strings.Contains(out, "stacks-b") || !strings.Contains(out, "not installed") {
		t.Errorf("status:\n%s", out)
	}

	// Destroy in the reverse order of needs.
	out = r.must("destroy", "--json-events", "--concurrency", "2")
	order = startOrder(t, out)
	before(t, order, "worker", "api")
	before(t, order, "api", "db")
	before(t, order, "edge", "web")
	before(t, order, "ingest", "db")
	got := r.all()
	if len(got["stacks-a"])+len(got["stacks-b"]) != 0 {
		t.Errorf("releases left after destroy: %v", got)
	}
}
