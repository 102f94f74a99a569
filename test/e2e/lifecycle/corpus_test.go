//go:build e2e

package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// corpusDir is the conformance corpus's charts.
func corpusDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(prereq.Corpus(t), "corpus")
}

// corpusChart copies a corpus chart, restoring dependencies that the corpus
// copy lacks from the corpus's own copies of those charts (stubs for the ones
// disabled by default), as `helm dependency build` would.
func corpusChart(t *testing.T, id string) string {
	t.Helper()
	corpus := corpusDir(t)
	src := filepath.Join(corpus, id, "chart")
	if id != "kube-prometheus-stack" {
		return src
	}
	dir := filepath.Join(t.TempDir(), id)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, dep := range []string{"kube-state-metrics", "prometheus-node-exporter", "grafana"} {
		if err := os.CopyFS(filepath.Join(dir, "charts", dep), os.DirFS(filepath.Join(corpus, dep, "chart"))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "charts", "grafana", "templates", "tests")); err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join(dir, "charts", "prometheus-windows-exporter")
	if err := os.MkdirAll(stub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stub, "Chart.yaml"), []byte("apiVersion: v2\nname: prometheus-windows-exporter\nversion: 0.12.8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Real-world charts: install, an upgrade that removes and adds objects,
// rollback and uninstall, with CRDs created first and never deleted.
func TestCorpusLifecycle(t *testing.T) {
	tests := map[string]struct {
		install, upgrade []string
		crd              string
		// removed exists after install and rollback, not after the upgrade; added the reverse.
		removed, added ref
	}{
		"cert-manager": {
			// Its CRDs are templates with the keep policy: an earlier run's stay
			// behind, owned by that release, and this one adopts them.
			install: []string{"--set", "crds.enabled=true", "--take-ownership"},
			upgrade: []string{"--set", "crds.enabled=true,cainjector.enabled=false,podDisruptionBudget.enabled=true"},
			crd:     "certificates.cert-manager.io",
			removed: ref{deployments, "rel-cert-manager-cainjector"},
			added:   ref{pdbs, "rel-cert-manager"},
		},
		"ingress-nginx": {
			install: []string{"--set", "controller.service.type=ClusterIP"},
			upgrade: []string{"--set", "controller.service.type=ClusterIP,controller.metrics.enabled=true,controller.admissionWebhooks.enabled=false"},
			removed: ref{services, "rel-ingress-nginx-controller-admission"},
			added:   ref{services, "rel-ingress-nginx-controller-metrics"},
		},
		"kube-prometheus-stack": {
			install: []string{"--set", "prometheus.service.type=ClusterIP"},
			upgrade: []string{"--set", "alertmanager.enabled=false,prometheus.podDisruptionBudget.enabled=true"},
			crd:     "prometheuses.monitoring.coreos.com",
			removed: ref{services, "rel-kube-prometheus-stack-alertmanager"},
			added:   ref{pdbs, "rel-kube-prometheus-stack-prometheus"},
		},
	}
	for id, tc := range tests {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			ns := env.Namespace(t)
			chart := corpusChart(t, id)
			args := func(cmd string, extra []string) []string {
				return append([]string{cmd, "rel", chart, "-n", ns, "--wait", "--timeout", "120s"}, extra...)
			}
			mustRun(t, args("install", tc.install)...)
			if tc.crd != "" && !exists(t, crds, "", tc.crd) {
				t.Errorf("CRD %s not installed", tc.crd)
			}
			if !exists(t, tc.removed.gvr, ns, tc.removed.name) || exists(t, tc.added.gvr, ns, tc.added.name) {
				t.Errorf("after install: %s should exist and %s not", tc.removed.name, tc.added.name)
			}
			mustRun(t, args("upgrade", tc.upgrade)...)
			if exists(t, tc.removed.gvr, ns, tc.removed.name) || !exists(t, tc.added.gvr, ns, tc.added.name) {
				t.Errorf("after upgrade: %s should be gone and %s exist", tc.removed.name, tc.added.name)
			}
			mustRun(t, "rollback", "rel", "-n", ns, "--wait", "--timeout", "120s")
			if !exists(t, tc.removed.gvr, ns, tc.removed.name) || exists(t, tc.added.gvr, ns, tc.added.name) {
				t.Errorf("after rollback: %s should exist and %s not", tc.removed.name, tc.added.name)
			}
			if got := statuses(t, ns, "rel"); got != "1:superseded 2:superseded 3:deployed" {
				t.Errorf("history = %s", got)
			}
			mustRun(t, "uninstall", "rel", "-n", ns, "--wait", "--timeout", "120s")
			if exists(t, tc.removed.gvr, ns, tc.removed.name) {
				t.Error("objects left after uninstall")
			}
			if tc.crd != "" && !exists(t, crds, "", tc.crd) {
				t.Errorf("uninstall deleted CRD %s", tc.crd)
			}
			if got := statuses(t, ns, "rel"); !strings.Contains(got, "not found") {
				t.Errorf("history after uninstall = %s", got)
			}
		})
	}
}
