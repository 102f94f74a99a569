//go:build e2e

// Package plugins checks plugins end to end: a post-renderer plugin changes
// what `kubectl chart install` and `upgrade` apply to a real control plane.
package plugins

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// env and bin are set once by TestMain and only read by tests.
var (
	env *cluster.Env
	bin string
)

func TestMain(m *testing.M) {
	b, remove, err := prereq.BuildBinary("plugins")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := cluster.Main(m, func(e *cluster.Env) { env = e })
	remove()
	os.Exit(code)
}

func run(t *testing.T, pluginDir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "KUBECTL_CHART_PLUGINS="+pluginDir, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"HELM_PLUGINS="+filepath.Join(home, "helm"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl chart %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestInstallAndUpgradeWithPostRenderer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ns := env.Namespace(t)
	plugins := t.TempDir()
	run(t, plugins, "plugin", "install", "testdata/labeler")

	out := run(t, plugins, "template", "web", "testdata/web", "--post-renderer", "labeler", "--post-renderer-args", "e2e")
	if !strings.Contains(out, `post-rendered: "e2e"`) {
		t.Fatalf("template output lacks the label:\n%s", out)
	}

	run(t, plugins, "--kubeconfig", env.Kubeconfig(), "install", "web", "testdata/web", "-n", ns,
		"--post-renderer", "labeler", "--post-renderer-args", "e2e")
	run(t, plugins, "--kubeconfig", env.Kubeconfig(), "install", "plain", "testdata/web", "-n", ns)

	checkLabels(ctx, t, ns, map[string]string{"web-config": "e2e", "plain-config": ""})

	run(t, plugins, "--kubeconfig", env.Kubeconfig(), "upgrade", "web", "testdata/web", "-n", ns,
		"--post-renderer", "labeler", "--post-renderer-args", "upgraded")
	run(t, plugins, "--kubeconfig", env.Kubeconfig(), "upgrade", "plain", "testdata/web", "-n", ns,
		"--post-renderer", "labeler")
	checkLabels(ctx, t, ns, map[string]string{"web-config": "upgraded", "plain-config": "yes"})
}

// checkLabels compares each ConfigMap's post-rendered label with want.
func checkLabels(ctx context.Context, t *testing.T, ns string, want map[string]string) {
	t.Helper()
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for name, w := range want {
		cm, err := env.Dynamic().Resource(cms).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cm.GetLabels()["post-rendered"]; got != w {
			t.Errorf("%s: label post-rendered=%q, want %q", name, got, w)
		}
	}
}
