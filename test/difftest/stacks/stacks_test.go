package stacks

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// TestStacksLikeHelmfile renders DIFFTEST_STACKS generated stacks (default
// 8) of seed DIFFTEST_SEED (default 7) with helmfile v1.8.0 and each Helm
// peer (DIFFTEST_DIALECT: helm4 or helm3 for one only) and with us, and compares what both print. helmfile runs one release
// at a time (--concurrency 1), the order we print in. When both fail only
// the failure is compared: the words are each program's (docs/stacks.md).
func TestStacksLikeHelmfile(t *testing.T) {
	count, seed := envInt(t, "DIFFTEST_STACKS", 8), envInt(t, "DIFFTEST_SEED", 7)
	helmfile := prereq.Tool(t, "helmfile", "v1.8.0")
	root := prereq.ModuleRoot()
	ours := filepath.Join(t.TempDir(), "kubectl-chart")
	build := exec.Command("go", "build", "-o", ours, "./cmd/kubectl-chart")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	only := os.Getenv("DIFFTEST_DIALECT")
	repoURL := serveRepo(t)
	for _, d := range []struct{ compat, version string }{{"helm4", "v4.3.1"}, {"helm3", "v3.22.0"}} {
		if only != "" && only != d.compat {
			continue
		}
		t.Run(d.compat, func(t *testing.T) {
			helm := prereq.HelmPeer(t, d.version)
			same, bothFailed, differ := 0, 0, 0
			for i := 0; i < count; i++ {
				c := Generate(uint64(seed), i)
				dir := t.TempDir()
				if err := c.Write(dir); err != nil {
					t.Fatal(err)
				}
				home := t.TempDir()
				env := append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+home+"/cache", "XDG_CONFIG_HOME="+home+"/config",
					"XDG_DATA_HOME="+home+"/data", "KUBECONFIG="+home+"/none", "HELM_NAMESPACE=", "KUBECTL_CHART_COMPAT=", "DIFFTEST_REPO_URL="+repoURL)
				hOut, hErr, hCode := run(t, dir, env, helmfile, append([]string{"--helm-binary", helm, "template", "--concurrency", "1"}, c.Args...)...)
				oOut, oErr, oCode := run(t, dir, env, ours, append([]string{"stack", "template", "--compat", d.compat}, c.Args...)...)
				switch {
				case hCode == 0 && oCode == 0 && hOut == oOut && hErr == oErr:
					same++
				case hCode != 0 && oCode != 0:
					bothFailed++
				default:
					differ++
					t.Errorf("seed %d case %d (%v): helmfile exit %d, ours %d\nhelmfile stderr:\n%s\nour stderr:\n%s\nstdout same: %v\n%s",
						seed, i, c.Args, hCode, oCode, hErr, oErr, hOut == oOut, c.StateFiles())
				}
				if (i+1)%100 == 0 {
					// How far a long run got, should it be stopped.
					t.Logf("difftest stacks %s: seed %d, after %d cases: %d identical, %d failed on both sides, %d differences", d.compat, seed, i+1, same, bothFailed, differ)
				}
			}
			t.Logf("difftest stacks %s: seed %d, %d cases: %d identical, %d failed on both sides, %d differences", d.compat, seed, count, same, bothFailed, differ)
		})
	}
}

// serveRepo serves the generated chart repository on 127.0.0.1 for the test.
func serveRepo(t *testing.T) string {
	t.Helper()
	var files map[string][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	var err error
	if files, err = RepoFiles(srv.URL); err != nil {
		t.Fatal(err)
	}
	return srv.URL
}

func run(t *testing.T, dir string, env []string, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", bin, err)
	}
	return out.String(), errOut.String(), 0
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("$%s: %q is not a count", name, v)
	}
	return n
}
