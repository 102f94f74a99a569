package stacks

import (
	"context"
	"fmt"
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
			r := Runner{Helmfile: helmfile, Helm: prereq.HelmPeer(t, d.version), Ours: ours, Compat: d.compat, RepoURL: repoURL}
			hook := newShrinkHook(t, r)
			same, bothFailed, differ := 0, 0, 0
			for i := 0; i < count; i++ {
				c := Generate(uint64(seed), i)
				res, err := r.Run(context.Background(), c)
				switch {
				case err != nil:
					t.Fatal(err)
				case !res.Differs() && res.Helmfile.Exit == 0:
					same++
				case !res.Differs():
					bothFailed++
				default:
					differ++
					t.Errorf("seed %d case %d (%v) differs:\n%s%s", seed, i, c.Args, res.Describe(), hook.report(t, fmt.Sprintf("%s-seed%d-case%d", d.compat, seed, i), c, res))
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
