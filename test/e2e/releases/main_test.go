//go:build e2e

// Package releases tests the release stores against the real control plane:
// the contract suite for the Secret and ConfigMap stores, and interoperability
// with Helm v3.22.0 in both directions.
package releases

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// env and bin are set once by TestMain and only read by tests.
var (
	env *cluster.Env
	bin string
)

func TestMain(m *testing.M) {
	b, remove, err := prereq.BuildBinary("releases")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := cluster.Main(m, func(e *cluster.Env) { env = e })
	remove()
	os.Exit(code)
}

func clientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// emptyNamespaces returns two namespaces made for the calling test, emptied of
// Secrets and ConfigMaps each time it is called.
func emptyNamespaces(t *testing.T, parent *testing.T, ns *[2]string) [2]string {
	t.Helper()
	if ns[0] == "" {
		ns[0], ns[1] = env.Namespace(parent), env.Namespace(parent)
	}
	c := clientset(t)
	ctx := context.Background()
	for _, n := range ns {
		if err := c.CoreV1().Secrets(n).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.CoreV1().ConfigMaps(n).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "owner=helm"}); err != nil {
			t.Fatal(err)
		}
		if err := c.CoreV1().ConfigMaps(n).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "kubectl-chart.dev/chunk-of"}); err != nil {
			t.Fatal(err)
		}
	}
	return *ns
}

// helmPeer builds (once, cached) and returns the Helm v3.22.0 binary.
func helmPeer(t *testing.T) string {
	t.Helper()
	return helmPeerVersion(t, "v3.22.0")
}

// helmPeerVersion builds (once, cached) and returns the Helm binary of version.
func helmPeerVersion(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}

// runner runs kubectl-chart and Helm against the test cluster with isolated homes.
type runner struct {
	t    *testing.T
	helm string
	env  []string
}

func newRunner(t *testing.T) *runner {
	d := t.TempDir()
	return &runner{t: t, helm: helmPeer(t), env: []string{
		"HOME=" + d,
		"XDG_CONFIG_HOME=" + filepath.Join(d, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(d, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(d, "data"),
		"HELM_CONFIG_HOME=" + filepath.Join(d, "helm-config"),
		"HELM_CACHE_HOME=" + filepath.Join(d, "helm-cache"),
		"HELM_DATA_HOME=" + filepath.Join(d, "helm-data"),
		"KUBECONFIG=" + env.Kubeconfig(),
		"PATH=" + os.Getenv("PATH"),
		"TZ=UTC",
	}}
}

func (r *runner) exec(extraEnv []string, program string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Env = append(append([]string{}, r.env...), extraEnv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("%s %s: %v\n%s%s", filepath.Base(program), strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

func (r *runner) kc(args ...string) string      { r.t.Helper(); return r.exec(nil, bin, args...) }
func (r *runner) helmRun(args ...string) string { r.t.Helper(); return r.exec(nil, r.helm, args...) }
