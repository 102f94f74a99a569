//go:build sequences

package sequences_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/sequences"
)

// env is set once by TestMain and only read by tests.
var env *cluster.Env

func TestMain(m *testing.M) { os.Exit(cluster.Main(m, func(e *cluster.Env) { env = e })) }

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// The bounded, deterministic run of make test: seed 11, 24 sequences per
// dialect, each step compared with Helm's on the package's cluster.
func TestSequencesLikeHelm(t *testing.T) {
	root := moduleRoot()
	ours := filepath.Join(t.TempDir(), "kubectl-chart")
	build := exec.Command("go", "build", "-o", ours, "./cmd/kubectl-chart")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, d := range []struct {
		dialect generator.Dialect
		version string
	}{{generator.Helm3, "v3.22.0"}, {generator.Helm4, "v4.3.1"}} {
		t.Run(string(d.dialect), func(t *testing.T) {
			// A missing peer fails the test: hack/helm-peer.sh builds it.
			peer, err := exec.Command("bash", filepath.Join(root, "hack", "helm-peer.sh"), d.version).Output()
			if err != nil {
				t.Fatalf("hack/helm-peer.sh %s: %v", d.version, err)
			}
			var out strings.Builder
			sum, err := sequences.Run(context.Background(), sequences.Config{
				Seed: 11, Count: 24, Dialect: d.dialect, Jobs: 4,
				Helm: strings.TrimSpace(string(peer)), Ours: ours, Kubeconfig: env.Kubeconfig(), Client: env.Dynamic(),
				Prefix: "seq" + string(d.dialect[len(d.dialect)-1:]), MaxShrink: 0,
			}, &out)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(strings.TrimSpace(out.String()))
			if sum.Sequences != 24 {
				t.Errorf("%d sequences run, want 24", sum.Sequences)
			}
			if sum.Differences > 0 {
				t.Errorf("%d of %d sequences differ from Helm %s (classes %v); the sequences are above; DIFFTEST_SEED=11 DIFFTEST_SEQUENCES=24 make difftest shrinks them", sum.Differences, sum.Sequences, d.version, sum.Classes)
			}
		})
	}
}
