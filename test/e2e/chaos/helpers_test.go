//go:build e2e

package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/adapters/lock"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// Errors by which an operation is refused because another one runs.
const (
	lockedMsg     = "is locked by"
	inProgressMsg = "another operation (install/upgrade/rollback) is in progress"
)

// shortLease is the lock lease of the suite's commands.
var shortLease = []string{"KUBECTL_CHART_LOCK_DURATION=3s"}

type result struct {
	out, err string
	code     int
	took     time.Duration
}

func (r result) refused() bool {
	return r.code != 0 && (strings.Contains(r.err, lockedMsg) || strings.Contains(r.err, inProgressMsg))
}

// command is our binary with the test cluster's kubeconfig (or kubeconfig,
// when given) and the Secret store.
func command(kubeconfig string, extraEnv []string, args ...string) *exec.Cmd {
	if kubeconfig == "" {
		kubeconfig = env.Kubeconfig()
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+kubeconfig, "KUBECTL_CHART_STORAGE=secret"), extraEnv...)
	return cmd
}

// run runs our binary to its end (3 minutes at most).
func run(t *testing.T, kubeconfig string, extraEnv []string, args ...string) result {
	t.Helper()
	cmd := command(kubeconfig, extraEnv, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	timer := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := result{out: stdout.String(), err: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return r
}

func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, "", shortLease, args...)
	if r.code != 0 {
		t.Fatalf("kubectl-chart %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r
}

// retryUntil runs a command until it succeeds: refusals (lock, operation
// in progress) are retried for up to a minute; any other failure is
// returned. It returns the successful run and the refusals before it.
func retryUntil(t *testing.T, kubeconfig string, args ...string) (result, int, error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	refusals := 0
	for {
		r := run(t, kubeconfig, shortLease, args...)
		if r.code == 0 {
			return r, refusals, nil
		}
		if !r.refused() || time.Now().After(deadline) {
			return r, refusals, fmt.Errorf("exit %d after %d refusals\nstdout:\n%s\nstderr:\n%s", r.code, refusals, r.out, r.err)
		}
		refusals++
		time.Sleep(100 * time.Millisecond)
	}
}

// retryUntilOK is retryUntil failing the test on other failures.
func retryUntilOK(t *testing.T, kubeconfig string, args ...string) (result, int) {
	t.Helper()
	r, refusals, err := retryUntil(t, kubeconfig, args...)
	if err != nil {
		t.Fatalf("kubectl-chart %s: %v", strings.Join(args, " "), err)
	}
	return r, refusals
}

// forget removes a release by hand, records, lock and objects: the manual
// step a failed recovery would need, taken so that a test can go on.
func forget(t *testing.T, ns, rel string) {
	t.Helper()
	ctx := context.Background()
	c := clientset(t)
	del := metav1.DeleteOptions{}
	errs := []error{
		c.CoreV1().Secrets(ns).DeleteCollection(ctx, del, metav1.ListOptions{LabelSelector: "owner=helm,name=" + rel}),
		c.CoordinationV1().Leases(ns).Delete(ctx, lock.LeaseName(rel), del),
		c.AppsV1().Deployments(ns).Delete(ctx, rel+"-app", del),
		c.CoreV1().Services(ns).Delete(ctx, rel+"-app", del),
		c.CoreV1().ServiceAccounts(ns).Delete(ctx, rel+"-app", del),
	}
	cms, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	errs = append(errs, err)
	if err == nil {
		for _, cm := range cms.Items {
			if strings.HasPrefix(cm.Name, rel+"-") {
				errs = append(errs, c.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, del))
			}
		}
	}
	for _, err := range errs {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("forget release %s/%s: %v", ns, rel, err)
		}
	}
}

// proc is a command running in the background.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	err            error
	started        time.Time
	ended          time.Time
}

// syncBuffer is a buffer written by a process and read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func start(t *testing.T, kubeconfig string, extraEnv []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: command(kubeconfig, extraEnv, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		p.ended = time.Now()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

// kill sends SIGKILL and waits until the process is reaped; it reports
// whether the process was still running.
func (p *proc) kill() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	var ee *exec.ExitError
	return errors.As(p.err, &ee) && !ee.Exited()
}

// wait waits for the process to end and returns its result.
func (p *proc) wait(timeout time.Duration) (result, bool) {
	select {
	case <-p.done:
	case <-time.After(timeout):
		return result{}, false
	}
	r := result{out: p.stdout.String(), err: p.stderr.String(), took: p.ended.Sub(p.started)}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		r.code = ee.ExitCode()
	}
	return r, true
}

func clientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// history reads a release's history from its Secrets; nil when there is none.
func history(t *testing.T, ns, name string) release.History {
	t.Helper()
	h, err := secret.New(clientset(t)).History(context.Background(), ns, name)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("history of %s/%s: %v", ns, name, err)
	}
	return h.Sorted()
}

// brief is "REVISION:STATUS ..." of a history.
func brief(h release.History) string {
	var parts []string
	for _, r := range h {
		parts = append(parts, fmt.Sprintf("%d:%s", r.Version, r.Info.Status))
	}
	return strings.Join(parts, " ")
}

// helmPeer returns the Helm binary of a version that hack/helm-peer.sh
// builds (once, cached).
func helmPeer(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}

// helm runs a Helm peer against the test cluster.
func helm(t *testing.T, version string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(helmPeer(t, version), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	return cmd
}

// helmHistory is `helm history -o json` of a Helm peer as "REVISION:STATUS ...".
func helmHistory(t *testing.T, version, ns, name string) (string, error) {
	t.Helper()
	out, err := helm(t, version, "history", name, "-n", ns, "-o", "json", "--max", "1000").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("helm %s history: %v\n%s", version, err, out)
	}
	var h []struct {
		Revision int    `json:"revision"`
		Status   string `json:"status"`
	}
	if err := json.Unmarshal(out, &h); err != nil {
		return "", fmt.Errorf("helm %s history -o json: %v\n%s", version, err, out)
	}
	var parts []string
	for _, r := range h {
		parts = append(parts, fmt.Sprintf("%d:%s", r.Revision, r.Status))
	}
	return strings.Join(parts, " "), nil
}

var helmVersions = []string{"v3.22.0", "v4.3.1"}

// atRest checks a release once no operation runs, and returns how many
// revisions of before were lost and the problems found:
//   - every revision of before is still there, and revisions run 1..N with
//     no gap;
//   - nothing is pending and exactly one revision is deployed (none, and no
//     record at all, when gone);
//   - Helm v3.22.0 and v4.3.1 read the same history;
//   - the live ConfigMap holds what the deployed revision's manifest sets;
//   - the release's lock Lease is gone.
func atRest(t *testing.T, ns, name string, before release.History, gone bool) (lost int, problems []string) {
	t.Helper()
	h := history(t, ns, name)
	have := map[int]*release.Release{}
	for _, r := range h {
		have[r.Version] = r
	}
	if !gone {
		for _, r := range before {
			if have[r.Version] == nil {
				lost++
				problems = append(problems, fmt.Sprintf("revision %d (%s before) is gone", r.Version, r.Info.Status))
			}
		}
		for i, r := range h {
			if r.Version != i+1 {
				problems = append(problems, fmt.Sprintf("revisions are not 1..%d: %s", len(h), brief(h)))
				break
			}
		}
	}
	deployed := 0
	var current *release.Release
	for _, r := range h {
		switch {
		case r.Info.Status.IsPending():
			problems = append(problems, fmt.Sprintf("revision %d left %s", r.Version, r.Info.Status))
		case r.Info.Status == release.StatusDeployed:
			deployed++
			current = r
		}
	}
	switch {
	case gone && len(h) > 0:
		problems = append(problems, "records left after uninstall: "+brief(h))
	case !gone && deployed != 1:
		problems = append(problems, fmt.Sprintf("%d revisions deployed: %s", deployed, brief(h)))
	}
	if !gone {
		ours := brief(h)
		for _, v := range helmVersions {
			theirs, err := helmHistory(t, v, ns, name)
			if err != nil {
				problems = append(problems, err.Error())
			} else if theirs != ours {
				problems = append(problems, fmt.Sprintf("helm %s history %q, ours %q", v, theirs, ours))
			}
		}
	}
	live, err := clientset(t).CoreV1().ConfigMaps(ns).Get(context.Background(), name+"-config", metav1.GetOptions{})
	switch {
	case gone && err == nil:
		problems = append(problems, "the release's ConfigMap is left after uninstall")
	case gone && !apierrors.IsNotFound(err):
		problems = append(problems, fmt.Sprintf("read ConfigMap: %v", err))
	case !gone && err != nil:
		problems = append(problems, fmt.Sprintf("read ConfigMap: %v", err))
	case !gone && current != nil:
		if want := manifestMessage(current.Manifest, name+"-config"); live.Data["message"] != want {
			problems = append(problems, fmt.Sprintf("live message %q, revision %d sets %q", live.Data["message"], current.Version, want))
		}
	}
	if _, err := clientset(t).CoordinationV1().Leases(ns).Get(context.Background(), lock.LeaseName(name), metav1.GetOptions{}); err == nil {
		problems = append(problems, "the lock Lease is left")
	} else if !apierrors.IsNotFound(err) {
		problems = append(problems, fmt.Sprintf("read Lease: %v", err))
	}
	return lost, problems
}

// manifestMessage is data.message of a ConfigMap in a manifest.
func manifestMessage(manifest, configMap string) string {
	for _, doc := range strings.Split(manifest, "\n---") {
		var o struct {
			Kind     string                `json:"kind"`
			Metadata struct{ Name string } `json:"metadata"`
			Data     map[string]string     `json:"data"`
		}
		if yaml.Unmarshal([]byte(doc), &o) == nil && o.Kind == "ConfigMap" && o.Metadata.Name == configMap {
			return o.Data["message"]
		}
	}
	return "<no ConfigMap " + configMap + ">"
}

// waitPending polls until the release has a pending revision (or the
// process ended), and reports whether it saw one. Errors reading (an API
// server restarting) are retried.
func waitPending(ns, name string, p *proc, timeout time.Duration) bool {
	c, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		return false
	}
	store := secret.New(c)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return false
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		h, err := store.History(ctx, ns, name)
		cancel()
		if err == nil && slices.ContainsFunc(h, func(r *release.Release) bool { return r.Info.Status.IsPending() }) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
