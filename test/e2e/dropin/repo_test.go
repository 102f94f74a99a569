//go:build e2e

package dropin

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// serveRepo packages testdata/repo's charts with the real Helm, indexes them
// and serves them as a chart repository on 127.0.0.1; it returns the URL.
func serveRepo(t *testing.T, realHelm string) string {
	t.Helper()
	dir := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	home := t.TempDir()
	helm := func(args ...string) {
		t.Helper()
		cmd := exec.Command(realHelm, args...)
		cmd.Env = []string{"HOME=" + home, "HELM_CONFIG_HOME=" + home, "HELM_CACHE_HOME=" + home, "HELM_DATA_HOME=" + home}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helm %v: %v\n%s", args, err, out)
		}
	}
	helm("package", filepath.Join(prereq.ModuleRoot(), "test", "e2e", "dropin", "testdata", "repo", "cache"), "-d", dir)
	helm("repo", "index", dir, "--url", srv.URL)
	return srv.URL
}
