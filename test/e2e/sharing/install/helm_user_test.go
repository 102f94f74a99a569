//go:build e2e

package install

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
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
	deployedRevision(t, "upgrade local/web -o json", out, 2)
	h.run(kc, "upgrade", "--install", "web", "local/web", "--set", "replicaCount=1")

	// What Helm prints, Helm and we print alike.
	for _, args := range [][]string{
		{"list", "-o", "json"},
		{"history", "web", "-o", "json"},
		{"get", "values", "web", "-o", "json"},
		{"repo", "list"},
		{"search", "repo", "web"},
	} {
		sameAsHelm(t, h, kc, helm, args...)
	}
	// $HELM_MAX_HISTORY kept two revisions, as Helm would have.
	if out := h.run(helm, "history", "web", "-o", "json"); strings.Count(out, `"revision"`) != 2 {
		t.Errorf("history after three revisions with HELM_MAX_HISTORY=2:\n%s", out)
	}
	registrySession(t, h, kc, helm, ns)

	// And `env` names Helm's files.
	if out := h.run(kc, "env", "HELM_REPOSITORY_CONFIG"); strings.TrimSpace(out) != reposFile {
		t.Errorf("env HELM_REPOSITORY_CONFIG = %q, want %q", out, reposFile)
	}
}

// registrySession goes on with Helm's registry logins: real Helm logs in to a
// registry that wants basic auth, and kubectl chart installs, upgrades and
// shows from it with the login Helm left, wherever Helm left it: under
// $HELM_CONFIG_HOME (Helm v4.3.1), in $HELM_REGISTRY_CONFIG (Helm v3.22.0),
// and in Helm's default place under $HOME when no HELM_* variable is set.
func registrySession(t *testing.T, h *home, kc, helm3, ns string) {
	t.Helper()
	const user, pass = "helm-user", "s3cret"
	host := startRegistry(t, user, pass)
	ref := "oci://" + host + "/charts/web"
	helm4 := helmPeer(t, "v4.3.1")
	h.run(helm4, "registry", "login", host, "--username", user, "--password", pass, "--plain-http")
	h.run(helm4, "push", "repo/web-0.1.0.tgz", "oci://"+host+"/charts", "--plain-http")

	h.run(kc, "install", "oci", ref, "--version", "0.1.0", "--plain-http", "--set", "replicaCount=0")
	deploymentExists(t, ns, "oci-web")
	out := h.run(kc, "upgrade", "oci", ref+":0.1.0", "--plain-http", "--reuse-values", "-o", "json")
	deployedRevision(t, "upgrade "+ref+" -o json", out, 2)
	for _, args := range [][]string{
		{"show", "chart", ref, "--version", "0.1.0", "--plain-http"},
		{"list", "-o", "json"},
		{"history", "oci", "-o", "json"},
		{"get", "values", "oci", "-o", "json"},
	} {
		sameAsHelm(t, h, kc, helm3, args...)
	}

	// Without a login the registry refuses us: the credentials above were Helm's.
	anon := h.with("HELM_REGISTRY_CONFIG=" + filepath.Join(h.dir, "nowhere", "config.json"))
	// Helm's words for it are the registry client's: ours say the same.
	if out, err := anon.try(kc, "show", "chart", ref, "--version", "0.1.0", "--plain-http"); err == nil || !strings.Contains(out, "basic credential not found") {
		t.Errorf("show chart %s without Helm's login: %v\n%s", ref, err, out)
	}

	// Helm v3.22.0's login in $HELM_REGISTRY_CONFIG.
	named := h.with("HELM_REGISTRY_CONFIG=" + filepath.Join(h.dir, "logins", "config.json"))
	named.run(helm3, "registry", "login", host, "--username", user, "--password", pass, "--plain-http")
	named.run(kc, "upgrade", "--install", "oci3", ref, "--version", "0.1.0", "--plain-http", "--set", "replicaCount=0")
	deploymentExists(t, ns, "oci3-web")
	// Helm's --registry-config names that file over $HELM_REGISTRY_CONFIG.
	sameAsHelm(t, anon, kc, helm3, "show", "chart", ref, "--version", "0.1.0", "--plain-http", "--registry-config", filepath.Join(h.dir, "logins", "config.json"))

	// Helm's default place, $HOME/.config/helm/registry/config.json, with
	// nothing but $HOME to find it by.
	var bare []string
	for _, e := range h.env {
		if !strings.HasPrefix(e, "HELM_") {
			bare = append(bare, e)
		}
	}
	plain := &home{t: t, dir: h.dir, env: bare}
	plain.run(helm3, "registry", "login", host, "--username", user, "--password", pass, "--plain-http")
	if _, err := os.Stat(filepath.Join(h.dir, ".config", "helm", "registry", "config.json")); err != nil {
		t.Fatalf("Helm's login is not where Helm keeps it by default: %v", err)
	}
	sameAsHelm(t, plain, kc, helm3, "show", "chart", ref, "--version", "0.1.0", "--plain-http")
}

// sameAsHelm runs args with kubectl chart and with Helm in h and compares
// what they print.
func sameAsHelm(t *testing.T, h *home, kc, helm string, args ...string) {
	t.Helper()
	if ours, theirs := h.run(kc, args...), h.run(helm, args...); ours != theirs {
		t.Errorf("%s differs from Helm:\n--- ours\n%s\n--- helm\n%s", strings.Join(args, " "), ours, theirs)
	}
}

// deployedRevision checks that out, a release as -o json prints it, is
// deployed at revision want.
func deployedRevision(t *testing.T, what, out string, want int) {
	t.Helper()
	var rel struct {
		Version int `json:"version"`
		Info    struct {
			Status string `json:"status"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(out), &rel); err != nil || rel.Info.Status != "deployed" || rel.Version != want {
		t.Fatalf("%s: revision %d status %q, want %d deployed (%v)\n%s", what, rel.Version, rel.Info.Status, want, err, out)
	}
}

// startRegistry runs an OCI registry on 127.0.0.1, behind basic auth when
// user is set, and returns its host:port.
func startRegistry(t *testing.T, user, pass string) string {
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); user != "" && (!ok || u != user || p != pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	return strings.TrimPrefix(url, "http://")
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
