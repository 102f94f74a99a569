//go:build e2e

package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// bin builds kubectl-chart once per test binary.
func bin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		// The binary outlives every test: its directory goes with the machine's temp files.
		binPath, _, buildErr = prereq.BuildBinary("lifecycle")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func demoChart(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "demo")
}

type result struct {
	out, err string
	code     int
}

// run runs kubectl-chart against the test cluster.
func run(t *testing.T, extraEnv []string, args ...string) result {
	t.Helper()
	return runAs(t, bin(t), append([]string{"KUBECTL_CHART_STORAGE=secret"}, extraEnv...), args...)
}

func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("kubectl-chart %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r
}

func statuses(t *testing.T, ns, name string) string {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	h, err := secret.New(client).History(context.Background(), ns, name)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, r := range h.Sorted() {
		out = append(out, fmt.Sprintf("%d:%s", r.Version, r.Info.Status))
	}
	return strings.Join(out, " ")
}

var (
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secrets     = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	widgets     = schema.GroupVersionResource{Group: "demo.kubectl-chart.dev", Version: "v1", Resource: "widgets"}
	crds        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	services    = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	pdbs        = schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}
)

// ref names a namespaced object by resource.
type ref struct {
	gvr  schema.GroupVersionResource
	name string
}

func get(t *testing.T, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	var ri = env.Dynamic().Resource(gvr).Namespace(ns)
	if ns == "" {
		u, err := env.Dynamic().Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func exists(t *testing.T, gvr schema.GroupVersionResource, ns, name string) bool {
	t.Helper()
	return get(t, gvr, ns, name) != nil
}

func TestDemoLifecycle(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	r := mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
	if !strings.Contains(r.out, "STATUS: deployed") || !strings.Contains(r.out, "web-demo is running 2 replica(s)") {
		t.Errorf("install output:\n%s", r.out)
	}
	if got := statuses(t, ns, "web"); got != "1:deployed" {
		t.Errorf("history after install = %s", got)
	}
	cm := get(t, configMaps, ns, "web-demo")
	if cm == nil || cm.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" || cm.GetAnnotations()["meta.helm.sh/release-name"] != "web" || cm.GetAnnotations()["meta.helm.sh/release-namespace"] != ns {
		t.Fatalf("config map ownership: %v", cm)
	}
	if !exists(t, widgets, ns, "web-demo") || !exists(t, configMaps, ns, "web-demo-legacy") {
		t.Error("widget or legacy config map missing after install")
	}
	password := get(t, secrets, ns, "web-demo").Object["data"].(map[string]any)["password"]

	r = mustRun(t, "upgrade", "web", chart, "-n", ns, "--set", "extraConfig=true,legacyConfig=false,message=bye,widget.size=5", "--wait", "--timeout", "60s")
	if !strings.Contains(r.out, `Release "web" has been upgraded`) {
		t.Errorf("upgrade output:\n%s", r.out)
	}
	if got := statuses(t, ns, "web"); got != "1:superseded 2:deployed" {
		t.Errorf("history after upgrade = %s", got)
	}
	if exists(t, configMaps, ns, "web-demo-legacy") || !exists(t, configMaps, ns, "web-demo-extra") {
		t.Error("upgrade did not delete the dropped object or add the new one")
	}
	if msg, _, _ := unstructured.NestedString(get(t, configMaps, ns, "web-demo").Object, "data", "message"); msg != "bye" {
		t.Errorf("message after upgrade = %q", msg)
	}
	if p := get(t, secrets, ns, "web-demo").Object["data"].(map[string]any)["password"]; p != password {
		t.Errorf("lookup did not keep the password: %v != %v", p, password)
	}

	// Helm 4 prints the logs of the test hooks that are Pods: none of a Job
	// (helmwords_test.go compares the logs of a Pod with Helm's).
	r = mustRun(t, "test", "web", "-n", ns, "--timeout", "60s", "--logs")
	if !strings.Contains(r.out, "Phase:          Succeeded\n\n") || strings.Contains(r.out, "POD LOGS") {
		t.Errorf("test --logs output:\n%s", r.out)
	}

	mustRun(t, "rollback", "web", "1", "-n", ns, "--wait", "--timeout", "60s")
	if got := statuses(t, ns, "web"); got != "1:superseded 2:superseded 3:deployed" {
		t.Errorf("history after rollback = %s", got)
	}
	if !exists(t, configMaps, ns, "web-demo-legacy") || exists(t, configMaps, ns, "web-demo-extra") {
		t.Error("rollback did not restore revision 1's objects")
	}
	if size, _, _ := unstructured.NestedInt64(get(t, widgets, ns, "web-demo").Object, "spec", "size"); size != 3 {
		t.Errorf("widget size after rollback = %d", size)
	}

	r = mustRun(t, "uninstall", "web", "-n", ns, "--wait")
	if !strings.Contains(r.out, `release "web" uninstalled`) || !strings.Contains(r.out, "[Secret] web-demo") {
		t.Errorf("uninstall output:\n%s", r.out)
	}
	if exists(t, configMaps, ns, "web-demo") || exists(t, deployments, ns, "web-demo") {
		t.Error("objects left after uninstall")
	}
	if !exists(t, secrets, ns, "web-demo") {
		t.Error("the keep policy's secret was deleted")
	}
	if !exists(t, crds, "", "widgets.demo.kubectl-chart.dev") {
		t.Error("uninstall deleted the CRD")
	}
	if got := statuses(t, ns, "web"); !strings.Contains(got, "not found") {
		t.Errorf("history after uninstall = %s", got)
	}
	if r := run(t, nil, "uninstall", "web", "-n", ns); r.code == 0 {
		t.Error("uninstall of a missing release succeeded")
	}
	mustRun(t, "uninstall", "web", "-n", ns, "--ignore-not-found")
}

func TestWaitFailureAndAtomic(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
	r := run(t, nil, "upgrade", "web", chart, "-n", ns, "--set", "stuck=true", "--wait", "--timeout", "5s")
	if r.code == 0 || !strings.Contains(r.err, "UPGRADE FAILED") || !strings.Contains(r.err, "Deployment "+ns+"/web-demo") {
		t.Errorf("stuck upgrade: exit %d\n%s", r.code, r.err)
	}
	if got := statuses(t, ns, "web"); got != "1:deployed 2:failed" {
		t.Errorf("history after failed upgrade = %s", got)
	}
	// Helm 4 names the flag rollback-on-failure whichever spelling was given.
	r = run(t, nil, "upgrade", "web", chart, "-n", ns, "--set", "stuck=true,legacyConfig=false", "--atomic", "--timeout", "5s")
	if r.code == 0 || !strings.Contains(r.err, "has been rolled back due to rollback-on-failure being set") {
		t.Errorf("atomic upgrade: exit %d\n%s", r.code, r.err)
	}
	if got := statuses(t, ns, "web"); got != "1:superseded 2:failed 3:failed 4:deployed" {
		t.Errorf("history after atomic upgrade = %s", got)
	}
	d := get(t, deployments, ns, "web-demo")
	if sel, found, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec", "nodeSelector"); found {
		t.Errorf("live deployment kept the failed revision's node selector %v", sel)
	}
	if !exists(t, configMaps, ns, "web-demo-legacy") {
		t.Error("rollback did not restore the legacy config map")
	}
}

func TestFailingHookAndOwnership(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	r := run(t, nil, "install", "hooked", chart, "-n", ns, "--set", "hooks.preInstall=true,hooks.failing=true", "--timeout", "30s")
	if r.code == 0 || !strings.Contains(r.err, "pre-install hook") {
		t.Errorf("failing hook: exit %d\n%s", r.code, r.err)
	}
	if got := statuses(t, ns, "hooked"); got != "1:failed" {
		t.Errorf("history = %s", got)
	}
	if exists(t, deployments, ns, "hooked-demo") {
		t.Error("resources were applied after a failed pre-install hook")
	}

	// An object that exists and belongs to nobody.
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "own-demo"}}}
	if _, err := env.Dynamic().Resource(configMaps).Namespace(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "install", "own", chart, "-n", ns)
	if r.code == 0 || !strings.Contains(r.err, `ConfigMap "own-demo" in namespace "`+ns+`" exists and cannot be imported into the current release`) {
		t.Errorf("ownership conflict: exit %d\n%s", r.code, r.err)
	}
	if got := statuses(t, ns, "own"); !strings.Contains(got, "not found") {
		t.Errorf("a refused install left history: %s", got)
	}
	mustRun(t, "install", "own", chart, "-n", ns, "--take-ownership")
	if got := get(t, configMaps, ns, "own-demo"); got.GetAnnotations()["meta.helm.sh/release-name"] != "own" {
		t.Errorf("--take-ownership did not adopt: %v", got.GetAnnotations())
	}
}

func TestBadKubeconfig(t *testing.T) {
	t.Parallel()
	r := run(t, nil, "install", "web", demoChart(t), "--kubeconfig", filepath.Join(t.TempDir(), "missing"))
	if r.code == 0 || !strings.HasPrefix(r.err, "Error: ") {
		t.Errorf("exit %d\n%s", r.code, r.err)
	}
}

func TestConcurrentUpgrades(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Go(func() {
			results[i] = run(t, nil, "upgrade", "web", chart, "-n", ns, "--set", fmt.Sprintf("message=m%d", i), "--wait", "--timeout", "20s")
		})
	}
	wg.Wait()
	ok, locked := 0, 0
	for _, r := range results {
		switch {
		case r.code == 0:
			ok++
		case strings.Contains(r.err, "is locked by") && strings.Contains(r.err, "upgrade web"):
			locked++
		default:
			t.Errorf("unexpected failure: %s", r.err)
		}
	}
	if ok != 1 || locked != 1 {
		t.Errorf("%d succeeded and %d were refused, want 1 and 1\n%+v", ok, locked, results)
	}
	if got := statuses(t, ns, "web"); got != "1:superseded 2:deployed" {
		t.Errorf("history = %s", got)
	}
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	short := []string{"KUBECTL_CHART_LOCK_DURATION=3s"}
	mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")

	cmd := exec.Command(bin(t), "upgrade", "web", chart, "-n", ns, "--set", "stuck=true", "--wait", "--timeout", "2m")
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+env.Kubeconfig(), "KUBECTL_CHART_STORAGE=secret"), short...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for statuses(t, ns, "web") != "1:deployed 2:pending-upgrade" {
		if time.Now().After(deadline) {
			t.Fatalf("the upgrade never became pending: %s", statuses(t, ns, "web"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	// While the dead holder's lease runs, operations are refused fast; once it
	// expired, the next one recovers the pending revision and proceeds.
	var r result
	deadline = time.Now().Add(time.Minute)
	for {
		r = run(t, short, "upgrade", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
		if r.code == 0 {
			break
		}
		if !strings.Contains(r.err, "is locked by") || time.Now().After(deadline) {
			t.Fatalf("upgrade after the crash: exit %d\n%s", r.code, r.err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !strings.Contains(r.err, "left pending-upgrade by an interrupted operation; marked failed") {
		t.Errorf("recovery not reported:\n%s", r.err)
	}
	if got := statuses(t, ns, "web"); got != "1:superseded 2:failed 3:deployed" {
		t.Errorf("history = %s", got)
	}
}

func TestInterruptMarksFailed(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	mustRun(t, "install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
	cmd := exec.Command(bin(t), "upgrade", "web", chart, "-n", ns, "--set", "stuck=true", "--wait", "--timeout", "2m")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig(), "KUBECTL_CHART_STORAGE=secret")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for statuses(t, ns, "web") != "1:deployed 2:pending-upgrade" {
		if time.Now().After(deadline) {
			t.Fatalf("the upgrade never became pending: %s", statuses(t, ns, "web"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The stuck Deployment applied, the upgrade is waiting for it: interrupt that.
	for {
		d := get(t, deployments, ns, "web-demo")
		if _, found, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec", "nodeSelector"); found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the upgrade never applied the stuck Deployment")
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	if got := statuses(t, ns, "web"); got != "1:deployed 2:failed" {
		t.Errorf("history after SIGINT = %s", got)
	}
	// The lock was freed: the next operation needs no wait.
	mustRun(t, "rollback", "web", "1", "-n", ns)
}

// With the local store, the lock is in the bbolt file: a second operation is
// refused naming the holder, and after a kill -9 the next operation on the
// same host takes the dead process's lock over at once.
func TestCrashRecoveryLocalStore(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	local := []string{"KUBECTL_CHART_STORAGE=bbolt", "KUBECTL_CHART_BBOLT_PATH=" + filepath.Join(t.TempDir(), "releases.db")}
	mustRunEnv := func(args ...string) result {
		t.Helper()
		r := run(t, local, args...)
		if r.code != 0 {
			t.Fatalf("kubectl-chart %s: exit %d\n%s", strings.Join(args, " "), r.code, r.err)
		}
		return r
	}
	history := func() string {
		t.Helper()
		return summarizeHistory(t, mustRunEnv("history", "web", "-n", ns, "-o", "json").out, false)
	}
	mustRunEnv("install", "web", chart, "-n", ns, "--wait", "--timeout", "60s")

	cmd := exec.Command(bin(t), "upgrade", "web", chart, "-n", ns, "--set", "stuck=true", "--wait", "--timeout", "2m")
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+env.Kubeconfig()), local...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for history() != "1:deployed 2:pending-upgrade" {
		if time.Now().After(deadline) {
			t.Fatalf("the upgrade never became pending: %s", history())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := run(t, local, "rollback", "web", "-n", ns); r.code == 0 || !strings.Contains(r.err, "is locked by") || !strings.Contains(r.err, "upgrade web") {
		t.Errorf("rollback while the upgrade runs: exit %d\n%s", r.code, r.err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	r := mustRunEnv("upgrade", "web", chart, "-n", ns, "--wait", "--timeout", "60s")
	if !strings.Contains(r.err, "left pending-upgrade by an interrupted operation; marked failed") {
		t.Errorf("recovery not reported:\n%s", r.err)
	}
	if got := history(); got != "1:superseded 2:failed 3:deployed" {
		t.Errorf("history = %s", got)
	}
}

// summarizeHistory reads `history -o json` (ours or Helm's) as
// "REVISION:STATUS[:DESCRIPTION] ...". Failure descriptions are cut after
// "failed: ", as each tool names the cause in its own words.
func summarizeHistory(t *testing.T, out string, withDescription bool) string {
	t.Helper()
	var h []struct {
		Revision    int    `json:"revision"`
		Status      string `json:"status"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("history -o json: %v\n%s", err, out)
	}
	var parts []string
	for _, r := range h {
		part := fmt.Sprintf("%d:%s", r.Revision, r.Status)
		if withDescription {
			desc, _, failed := strings.Cut(r.Description, "failed: ")
			if failed {
				desc += "failed: ..."
			}
			part += ":" + desc
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}
