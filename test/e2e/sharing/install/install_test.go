//go:build e2e

// Package install finishes the sharing round trips on a real control plane: charts
// served from a loopback repository and pushed to an in-process OCI registry are
// installed by kubectl-chart from their references, and by Helm v3.22.0, and charts
// Helm packages and pushes are installed by kubectl-chart.
package install

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var (
	env *cluster.Env
	// binDir lives as long as the package's tests; build puts the binary there
	// once for all of them.
	binDir            string
	binOnce           sync.Once
	bin, binBuildFail string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubectl-chart-install-e2e-")
	if err != nil {
		log.Fatal(err)
	}
	binDir = dir
	code := cluster.Main(m, func(e *cluster.Env) { env = e })
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// build builds kubectl-chart once for every test of the package (a test's
// TempDir would vanish with the test that made it).
func build(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		p := filepath.Join(binDir, "kubectl-chart")
		cmd := exec.Command("go", "build", "-o", p, "./cmd/kubectl-chart")
		cmd.Dir = prereq.ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			binBuildFail = fmt.Sprintf("build: %v\n%s", err, out)
			return
		}
		bin = p
	})
	if binBuildFail != "" {
		t.Fatal(binBuildFail)
	}
	return bin
}

type home struct {
	t   *testing.T
	dir string
	env []string
}

func newHome(t *testing.T) *home {
	d := t.TempDir()
	return &home{t: t, dir: d, env: []string{
		"HOME=" + d, "PATH=" + os.Getenv("PATH"), "GOCACHE=" + os.Getenv("GOCACHE"),
		"XDG_CONFIG_HOME=" + filepath.Join(d, "config"), "XDG_CACHE_HOME=" + filepath.Join(d, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(d, "helm-config"), "HELM_CACHE_HOME=" + filepath.Join(d, "helm-cache"),
		"HELM_DATA_HOME=" + filepath.Join(d, "helm-data"),
		"KUBECONFIG=" + env.Kubeconfig(), "KUBECTL_CHART_STORAGE=secret",
	}}
}

func (h *home) run(program string, args ...string) string {
	h.t.Helper()
	out, err := h.try(program, args...)
	if err != nil {
		h.t.Fatalf("%s %s: %v\n%s", filepath.Base(program), strings.Join(args, " "), err, out)
	}
	return out
}

// try runs program and returns its stdout, or its stdout and stderr and the
// error when it fails.
func (h *home) try(program string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir, cmd.Env = h.dir, h.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String() + errOut.String(), err
	}
	return out.String(), nil
}

// with is h in the same directory with more environment variables.
func (h *home) with(vars ...string) *home {
	return &home{t: h.t, dir: h.dir, env: append(append([]string(nil), h.env...), vars...)}
}

func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// helmPeer is the Helm of version, by default hack/helm-peer.sh's v3.22.0.
func helmPeer(t *testing.T, version ...string) string {
	t.Helper()
	if len(version) > 0 {
		return prereq.BuildHelmPeer(t, version[0])
	}
	return prereq.BuildHelmPeer(t, "v3.22.0")
}

func deploymentExists(t *testing.T, ns, name string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
		t.Errorf("deployment %s/%s: %v", ns, name, err)
	}
}

// TestInstallFromReferences: create → lint --strict → package → repo index → serve →
// repo add → search → pull → install REPO/NAME; push → install oci://; and Helm installs
// what we serve and push, and we install what Helm packages and pushes.
func TestInstallFromReferences(t *testing.T) {
	kc := build(t)
	helm := helmPeer(t)
	h := newHome(t)
	ns := env.Namespace(t)

	h.run(kc, "create", "web")
	h.run(kc, "lint", "--strict", "web")
	h.run(kc, "package", "web", "-d", "repo")
	url := serve(t, http.FileServer(http.Dir(filepath.Join(h.dir, "repo"))))
	h.run(kc, "repo", "index", filepath.Join(h.dir, "repo"), "--url", url)
	h.run(kc, "repo", "add", "myrepo", url)
	if out := h.run(kc, "search", "repo", "web"); !strings.Contains(out, "myrepo/web") {
		t.Fatalf("search:\n%s", out)
	}
	h.run(kc, "pull", "myrepo/web", "--untar", "--untardir", "pulled")
	h.run(kc, "install", "fromrepo", "myrepo/web", "-n", ns, "--version", "0.1.0")
	deploymentExists(t, ns, "fromrepo-web")

	host := startRegistry(t, "", "")
	h.run(kc, "push", "repo/web-0.1.0.tgz", "oci://"+host+"/charts", "--plain-http")
	h.run(kc, "install", "fromoci", "oci://"+host+"/charts/web", "--version", "0.1.0", "--plain-http", "-n", ns)
	deploymentExists(t, ns, "fromoci-web")
	h.run(kc, "upgrade", "fromoci", "oci://"+host+"/charts/web:0.1.0", "--plain-http", "-n", ns, "--set", "replicaCount=2")

	// Helm installs what we serve and push.
	h.run(helm, "repo", "add", "ours", url)
	h.run(helm, "install", "helmrepo", "ours/web", "-n", ns)
	deploymentExists(t, ns, "helmrepo-web")
	h.run(helm, "install", "helmoci", "oci://"+host+"/charts/web", "--version", "0.1.0", "--plain-http", "-n", ns)
	deploymentExists(t, ns, "helmoci-web")

	// We install what Helm packages and pushes.
	h.run(helm, "create", "hchart")
	if err := os.MkdirAll(filepath.Join(h.dir, "hrepo"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.run(helm, "package", "hchart", "-d", "hrepo")
	hurl := serve(t, http.FileServer(http.Dir(filepath.Join(h.dir, "hrepo"))))
	h.run(helm, "repo", "index", filepath.Join(h.dir, "hrepo"), "--url", hurl)
	h.run(kc, "repo", "add", "theirs", hurl)
	h.run(kc, "install", "kchelmrepo", "theirs/hchart", "-n", ns)
	deploymentExists(t, ns, "kchelmrepo-hchart")
	h.run(helm, "push", "hrepo/hchart-0.1.0.tgz", "oci://"+host+"/theirs", "--plain-http")
	h.run(kc, "install", "kchelmoci", "oci://"+host+"/theirs/hchart:0.1.0", "--plain-http", "-n", ns)
	deploymentExists(t, ns, "kchelmoci-hchart")
}
