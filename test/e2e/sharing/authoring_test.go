//go:build e2e

package sharing

import (
	"os"
	"strings"
	"testing"
)

// TestAuthoring: create --starter, lint with values, subcharts and Kubernetes versions,
// repo index --merge, show crds and pull --prov.
func TestAuthoring(t *testing.T) {
	h := newHome(t)

	// A starter from the data directory, by name, and one by path.
	writeFile(t, h.path("data", "kubectl-chart", "starters", "mine", "Chart.yaml"), "apiVersion: v2\nname: <CHARTNAME>\nversion: 0.1.0\n")
	writeFile(t, h.path("data", "kubectl-chart", "starters", "mine", "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <CHARTNAME>-{{ .Release.Name }}\n")
	h.kc("create", "fromstarter", "--starter", "mine")
	if out := h.kc("template", "rel", "fromstarter"); !strings.Contains(out, "name: fromstarter-rel") {
		t.Errorf("starter chart:\n%s", out)
	}
	h.kc("create", "bypath", "--starter", h.path("data", "kubectl-chart", "starters", "mine"))
	if msg := h.kcFail("create", "x", "--starter", "missing"); !strings.Contains(msg, "starter") {
		t.Errorf("missing starter: %s", msg)
	}
	for _, bad := range []string{"a b", ".."} {
		h.kcFail("create", bad)
	}

	// lint: values given on the command line are rendered and checked against the chart's schema
	// (create writes none, as Helm); --strict turns warnings into failures.
	h.kc("create", "web")
	writeFile(t, h.path("web", "values.schema.json"), `{"type":"object","properties":{"service":{"type":"object","properties":{"port":{"type":"integer"}}}}}`)
	h.kc("lint", "web", "--set", "service.type=NodePort")
	if msg := h.kcFail("lint", "web", "--set", "service.port=high"); !strings.Contains(msg, "1 chart(s) failed") {
		t.Errorf("schema violation: %s", msg)
	}
	out, _, _ := h.exec(bin, "lint", "web", "--set", "service.port=high")
	if !strings.Contains(out, "[ERROR] values.yaml") {
		t.Errorf("lint output does not name values.yaml:\n%s", out)
	}
	writeFile(t, h.path("web", "templates", "pdb.yaml"), "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  minAvailable: 1\n")
	h.kc("lint", "web", "--kube-version", "1.22.0")
	if msg := h.kcFail("lint", "web", "--strict", "--kube-version", "1.22.0"); !strings.Contains(msg, "failed") {
		t.Errorf("strict with a deprecated API: %s", msg)
	}
	// An API removed at the target version only warns, as both Helms' lint: the chart passes.
	out = h.kc("lint", "web", "--kube-version", "1.25.0")
	if !strings.Contains(out, "[WARNING] templates/pdb.yaml: policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget") {
		t.Errorf("removed API:\n%s", out)
	}
	if err := os.Remove(h.path("web", "templates", "pdb.yaml")); err != nil {
		t.Fatal(err)
	}
	h.kc("create", h.path("web", "charts", "inner"))
	innerYAML := string(mustRead(t, h.path("web", "charts", "inner", "Chart.yaml")))
	writeFile(t, h.path("web", "charts", "inner", "Chart.yaml"), innerYAML+"maintainers:\n- name: someone\n  email: not-an-email\n")
	webYAML := string(mustRead(t, h.path("web", "Chart.yaml")))
	writeFile(t, h.path("web", "Chart.yaml"), webYAML+"dependencies:\n- name: inner\n  version: 0.1.0\n")
	h.kc("lint", "web") // the subchart's own Chart.yaml is checked only with --with-subcharts
	out, _, err := h.exec(bin, "lint", "web", "--with-subcharts")
	if err == nil || !strings.Contains(out, "==> Linting web/charts/inner") || !strings.Contains(out, "[ERROR] Chart.yaml:") || !strings.Contains(out, "invalid email 'not-an-email'") {
		t.Errorf("--with-subcharts:\n%s", out)
	}

	// repo index --merge keeps entries of the old index.
	h.kc("create", "one")
	h.kc("package", "one", "-d", "r1")
	h.kc("repo", "index", h.path("r1"), "--url", "https://old.example/charts")
	h.kc("create", "two")
	h.kc("package", "two", "-d", "r2")
	h.kc("repo", "index", h.path("r2"), "--merge", h.path("r1", "index.yaml"))
	merged := string(mustRead(t, h.path("r2", "index.yaml")))
	if !strings.Contains(merged, "https://old.example/charts/one-0.1.0.tgz") || !strings.Contains(merged, "two-0.1.0.tgz") {
		t.Errorf("merged index:\n%s", merged)
	}

	// show crds, and pull --prov fetches the .prov without verifying it.
	writeFile(t, h.path("one", "crds", "crd.yaml"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n")
	if out := h.kc("show", "crds", "one"); !strings.Contains(out, "widgets.example.com") {
		t.Errorf("show crds:\n%s", out)
	}
	writeFile(t, h.path("r1", "one-0.1.0.tgz.prov"), "not checked\n")
	srv := serveDir(t, h.path("r1"), "", "")
	mkdir(t, h.path("got"))
	h.kc("pull", srv.URL+"/one-0.1.0.tgz", "--prov", "-d", "got")
	if b := mustRead(t, h.path("got", "one-0.1.0.tgz.prov")); string(b) != "not checked\n" {
		t.Errorf("pulled .prov: %q", b)
	}
}
