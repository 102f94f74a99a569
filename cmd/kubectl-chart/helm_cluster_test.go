package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// helmPeerVersions are the Helm each dialect's goldens come from.
var helmPeerVersions = map[dialect.Dialect]string{dialect.Helm4: "v4.3.1", dialect.Helm3: "v3.22.0"}

// helmCluster runs the real Helm on a real control plane, for goldens of
// commands that change or read a cluster: the dev cluster of
// $KUBECTL_CHART_TEST_KUBECONFIG, each case in namespaces of its own
// (goldens-…, deleted when the case ends).
type helmCluster struct {
	env    *cluster.Env
	client kubernetes.Interface
}

// newHelmCluster connects to $KUBECTL_CHART_TEST_KUBECONFIG's cluster. Writing
// goldens needs one: without it the test fails, never falling back to our
// own output.
func newHelmCluster(t *testing.T, flag string) *helmCluster {
	t.Helper()
	kubeconfig := os.Getenv(cluster.KubeconfigEnv)
	if kubeconfig == "" {
		t.Fatalf("%s writes goldens by running Helm on a real cluster: set %s to its kubeconfig (the dev cluster's: /root/.local/state/kubectl-chart/dev-cluster/kubeconfig)", flag, cluster.KubeconfigEnv)
	}
	env, err := cluster.NewEnv(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	return &helmCluster{env: env, client: client}
}

// helmRun is one case's Helm: its dialect's binary, a HELM_* home of its own
// and the namespace its commands default to, which stands for the case's.
type helmRun struct {
	cluster *helmCluster
	helm    string
	home    string
	// namespace is the cluster's (goldens-RANDOM), caseNamespace the case's
	// name for it.
	namespace, caseNamespace string
	// named maps the other namespaces the run created to the case's names for them.
	named map[string]string
}

// newRun creates a fresh namespace for a case to run Helm of dialect d in,
// standing for the case's caseNamespace. Its name, goldens- and five random
// characters, is as long as goldens-seeds: a case whose output pads
// namespaces into table columns names its own as long, so that they pad
// alike.
func (h *helmCluster) newRun(t *testing.T, d dialect.Dialect, caseNamespace string) *helmRun {
	t.Helper()
	r := &helmRun{cluster: h, helm: prereq.BuildHelmPeer(t, helmPeerVersions[d]), home: t.TempDir(),
		namespace: "goldens-" + utilrand.String(5), caseNamespace: caseNamespace, named: map[string]string{}}
	h.env.NamedNamespace(t, r.namespace)
	return r
}

// run runs Helm with args in the run's namespace and returns its stdout and
// stderr; it must succeed.
func (r *helmRun) run(t *testing.T, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, err := r.exec(t, args...)
	if err != nil {
		t.Fatalf("helm %v: %v\n%s", args, err, stderr)
	}
	return stdout, stderr
}

// fail runs Helm with args in the run's namespace, which must fail, and
// returns its error: what stderr says after "Error: ".
func (r *helmRun) fail(t *testing.T, args ...string) string {
	t.Helper()
	_, stderr, err := r.exec(t, args...)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("helm %v: %v, want it to fail\n%s", args, err, stderr)
	}
	_, msg, ok := strings.Cut(stderr, "Error: ")
	if !ok {
		t.Fatalf("helm %v failed (%v) saying no error:\n%s", args, err, stderr)
	}
	return strings.TrimSuffix(msg, "\n")
}

// exec runs Helm with args in the run's namespace.
func (r *helmRun) exec(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.helm, args...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.home,
		"HELM_CONFIG_HOME=" + filepath.Join(r.home, "config"),
		"HELM_CACHE_HOME=" + filepath.Join(r.home, "cache"),
		"HELM_DATA_HOME=" + filepath.Join(r.home, "data"),
		"KUBECONFIG=" + r.cluster.env.Kubeconfig(),
		"HELM_NAMESPACE=" + r.namespace,
		"TZ=UTC",
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// completePods plays the kubelet for the pods of the run's namespace until
// ctx ends: kwok runs a pod, but only a Job's pod ever ends, and a test hook
// pod whose command is `true` ends at once, successfully.
func (r *helmRun) completePods(ctx context.Context, t *testing.T) {
	pods := r.cluster.client.CoreV1().Pods(r.namespace)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		list, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for i := range list.Items {
			p := &list.Items[i]
			if p.Status.Phase != corev1.PodRunning {
				continue
			}
			now := metav1.Now()
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = nil
			for _, c := range p.Spec.Containers {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
					Name: c.Name, Image: c.Image,
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}},
				})
			}
			if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && ctx.Err() == nil {
				t.Logf("complete pod %s: %v (tried again)", p.Name, err)
			}
		}
	}
}

// helmArgs are the arguments of our command line as Helm takes them, and the
// dialect whose Helm to run: --compat chooses the Helm, and Helm has no
// --storage or --bbolt-path (our output with them must be Helm's without).
func helmArgs(args []string) (dialect.Dialect, []string) {
	d := dialect.Helm4
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		if !slices.Contains([]string{"--compat", "--storage", "--bbolt-path"}, name) {
			out = append(out, a)
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		if name == "--compat" {
			d = dialect.Dialect(value)
		}
	}
	return d, out
}

// args is a command line of a case as Helm runs it in the cluster: helmArgs,
// with each namespace the case names (-n, --namespace) the run's for it.
func (r *helmRun) args(t *testing.T, args []string) []string {
	t.Helper()
	_, out := helmArgs(args)
	for i := 0; i < len(out); i++ {
		switch name, value, ok := strings.Cut(out[i], "="); {
		case (name == "-n" || name == "--namespace") && ok:
			out[i] = name + "=" + r.namespaceFor(t, value)
		case (name == "-n" || name == "--namespace") && i+1 < len(out):
			i++
			out[i] = r.namespaceFor(t, out[i])
		}
	}
	return out
}

// namespaceFor is the cluster's namespace for one a case names (created on
// first use): the run's for the case's own; for a name that extends the
// case's, the run's extended alike; for another, the run's with the name
// appended.
func (r *helmRun) namespaceFor(t *testing.T, name string) string {
	t.Helper()
	if name == r.caseNamespace {
		return r.namespace
	}
	ns := r.namespace + "-" + name
	if suffix, ok := strings.CutPrefix(name, r.caseNamespace+"-"); ok {
		ns = r.namespace + "-" + suffix
	}
	if _, ok := r.named[ns]; !ok {
		r.cluster.env.NamedNamespace(t, ns)
		r.named[ns] = name
	}
	return ns
}

// caseNames puts back in Helm's output the case's names of the run's
// namespaces.
func (r *helmRun) caseNames(text string) string {
	for ns, name := range r.named {
		text = strings.ReplaceAll(text, ns, name)
	}
	return strings.ReplaceAll(text, r.namespace, r.caseNamespace)
}

// seed stores releases as Helm does (Secrets, written by our secret store),
// each in the run's namespace for its own.
func (r *helmRun) seed(t *testing.T, rels []*release.Release) {
	t.Helper()
	store := secret.New(r.cluster.client)
	for _, rel := range rels {
		rel.Namespace = r.namespaceFor(t, rel.Namespace)
		if err := store.Create(context.Background(), rel); err != nil {
			t.Fatal(err)
		}
	}
}

// writeHelmOutput writes a case's stdout golden, and its stderr golden (the
// same name ending .stderr.txt) when it printed on stderr, removing a stale
// one.
func writeHelmOutput(t *testing.T, golden, stdout, stderr string) {
	t.Helper()
	writeGolden(t, golden, stdout)
	goldenErr := stderrGolden(golden)
	if err := os.Remove(goldenErr); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if stderr != "" {
		writeGolden(t, goldenErr, stderr)
	}
}

// readHelmOutput reads a case's stdout golden and its stderr golden, empty
// when there is none.
func readHelmOutput(t *testing.T, golden, flag string) (stdout, stderr string) {
	t.Helper()
	out, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (%s writes it, running Helm)", err, flag)
	}
	errOut, err := os.ReadFile(stderrGolden(golden))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(out), string(errOut)
}

func stderrGolden(golden string) string { return strings.TrimSuffix(golden, ".txt") + ".stderr.txt" }
