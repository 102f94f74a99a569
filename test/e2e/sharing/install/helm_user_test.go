package install

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// A Helm user's session with only Helm's configuration: real Helm adds the
// repository, then kubectl chart, told where to work by HELM_* variables and
// Helm's global flags, installs, upgrades and lists from it, and what it
// prints is what Helm prints.
func TestHelmUserSession(t *testing.T) {
	kc := build(t)
	helm := helmPeer(t)
	h := newHome(t)
	ns := env.Namespace(t)
	// Only Helm's configuration: none of ours.
	var keep []string
	for _, e := range h.env {
		if !strings.HasPrefix(e, "KUBECTL_CHART_") && !strings.HasPrefix(e, "XDG_") {
			keep = append(keep, e)
		}
	}
	h.env = append(keep, "HELM_NAMESPACE="+ns, "HELM_MAX_HISTORY=2")

	h.run(helm, "create", "web")
	h.run(helm, "package", "web", "-d", "repo")
	url := serve(t, http.FileServer(http.Dir(filepath.Join(h.dir, "repo"))))
	h.run(helm, "repo", "index", filepath.Join(h.dir, "repo"), "--url", url)
	h.run(helm, "repo", "add", "local", url)

	// $HELM_NAMESPACE, Helm's repositories.yaml and cache.
	h.run(kc, "install", "web", "local/web", "--set", "replicaCount=0")
	deploymentExists(t, ns, "web")
	// Helm's global flags, with Helm's meaning.
	reposFile := filepath.Join(h.dir, "helm-config", "repositories.yaml")
	out := h.run(kc, "upgrade", "web", "local/web", "--repository-config", reposFile, "--repository-cache", filepath.Join(h.dir, "helm-cache", "repository"), "--debug", "--qps", "50", "--burst-limit", "100", "-o", "json")
	var rel struct {
		Version int `json:"version"`
		Info    struct {
			Status string `json:"status"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(out), &rel); err != nil || rel.Info.Status != "deployed" || rel.Version != 2 {
		t.Fatalf("upgrade -o json: revision %d status %q (%v)\n%s", rel.Version, rel.Info.Status, err, out)
	}
	h.run(kc, "upgrade", "--install", "web", "local/web", "--set", "replicaCount=1")

	// What Helm prints, Helm and we print alike.
	for _, args := range [][]string{
		{"list", "-o", "json"},
		{"history", "web", "-o", "json"},
		{"get", "values", "web", "-o", "json"},
		{"repo", "list"},
		{"search", "repo", "web"},
	} {
		if ours, theirs := h.run(kc, args...), h.run(helm, args...); ours != theirs {
			t.Errorf("%s differs from Helm:\n--- ours\n%s\n--- helm\n%s", strings.Join(args, " "), ours, theirs)
		}
	}
	// $HELM_MAX_HISTORY kept two revisions, as Helm would have.
	if out := h.run(helm, "history", "web", "-o", "json"); strings.Count(out, `"revision"`) != 2 {
		t.Errorf("history after three revisions with HELM_MAX_HISTORY=2:\n%s", out)
	}
	// And `env` names Helm's files.
	if out := h.run(kc, "env", "HELM_REPOSITORY_CONFIG"); strings.TrimSpace(out) != reposFile {
		t.Errorf("env HELM_REPOSITORY_CONFIG = %q, want %q", out, reposFile)
	}
}

// --insecure-skip-tls-verify is the chart download's, as in Helm: against a
// cluster whose CA the kubeconfig lacks, install still fails on the API
// server's certificate. kubectl's flag is --kube-insecure-skip-tls-verify.
func TestInsecureSkipTLSVerifyKeepsTheClustersTLS(t *testing.T) {
	kc := build(t)
	h := newHome(t)
	ns := env.Namespace(t)
	cfg, err := clientcmd.LoadFromFile(env.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.CertificateAuthorityData, c.CertificateAuthority = nil, ""
	}
	noCA := filepath.Join(h.dir, "no-ca.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, noCA); err != nil {
		t.Fatal(err)
	}
	h.run(kc, "create", "web")
	cmd := exec.Command(kc, "install", "web", "./web", "-n", ns, "--kubeconfig", noCA, "--insecure-skip-tls-verify")
	cmd.Dir, cmd.Env = h.dir, h.env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "certificate") {
		t.Fatalf("install --insecure-skip-tls-verify without the cluster's CA: %v\n%s", err, out)
	}
	h.run(kc, "install", "web", "./web", "-n", ns, "--kubeconfig", noCA, "--kube-insecure-skip-tls-verify", "--set", "replicaCount=0")
	deploymentExists(t, ns, "web")
}
