//go:build e2e

// Package sharing tests chart authoring and sharing end to end with the real binary:
// create, lint, package, repo index, a chart repository served on 127.0.0.1 (with and
// without basic auth), repo add, search, pull, template from references, an in-process
// OCI registry (with and without auth), and interoperability with Helm v3.22.0.
package sharing

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// bin is the kubectl-chart binary under test, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	b, remove, err := prereq.BuildBinary("sharing")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	bin = b
	return m.Run()
}

// home is an isolated set of XDG directories for one test.
type home struct {
	t   *testing.T
	dir string
	env []string
}

func newHome(t *testing.T) *home {
	t.Helper()
	d := t.TempDir()
	return &home{t: t, dir: d, env: []string{
		"HOME=" + d,
		"XDG_CONFIG_HOME=" + filepath.Join(d, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(d, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(d, "data"),
		"HELM_CONFIG_HOME=" + filepath.Join(d, "helm-config"),
		"HELM_CACHE_HOME=" + filepath.Join(d, "helm-cache"),
		"HELM_DATA_HOME=" + filepath.Join(d, "helm-data"),
		"PATH=" + os.Getenv("PATH"),
		"GOCACHE=" + os.Getenv("GOCACHE"),
	}}
}

// run runs a program in the test's home directory and returns stdout and stderr.
func (h *home) exec(program string, args ...string) (string, string, error) {
	cmd := exec.Command(program, args...)
	cmd.Dir = h.dir
	cmd.Env = h.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// kc runs kubectl-chart and fails the test on error.
func (h *home) kc(args ...string) string {
	h.t.Helper()
	out, errOut, err := h.exec(bin, args...)
	if err != nil {
		h.t.Fatalf("kubectl-chart %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// kcFail runs kubectl-chart, expects it to fail and returns its stderr.
func (h *home) kcFail(args ...string) string {
	h.t.Helper()
	out, errOut, err := h.exec(bin, args...)
	if err == nil {
		h.t.Fatalf("kubectl-chart %s succeeded, want an error\n%s", strings.Join(args, " "), out)
	}
	return errOut
}

func (h *home) path(p ...string) string { return filepath.Join(append([]string{h.dir}, p...)...) }

// serveDir serves dir on 127.0.0.1, behind basic auth when user is set.
func serveDir(t *testing.T, dir, user, pass string) *httptest.Server {
	t.Helper()
	fs := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// startRegistry runs a real OCI registry in-process on 127.0.0.1 and returns host:port.
func startRegistry(t *testing.T, user, pass string) string {
	t.Helper()
	reg := registry.New(registry.Logger(discardLogger()))
	h := reg
	if user != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			reg.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// helmPeer builds (once, cached) and returns the Helm v3.22.0 binary.
func helmPeer(t *testing.T) string {
	t.Helper()
	return helmPeerAt(t, "v3.22.0")
}

// helmPeerAt builds (once, cached) and returns the Helm binary of version.
func helmPeerAt(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}
