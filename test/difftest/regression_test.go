// Package difftest replays the regression cases the differential tester stored
// (testdata/regressions) against kubectl-chart, built here; Helm is not needed. With
// -update each case's golden is made again by running the real Helm of its dialect
// (hack/helm-peer.sh builds it).
package difftest

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

var update = flag.Bool("update", false, "make the goldens again with the real Helm")

func moduleRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func buildOurs(t *testing.T, root string) string {
	bin := filepath.Join(t.TempDir(), "kubectl-chart")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/kubectl-chart")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func helmPeer(t *testing.T, d generator.Dialect) string {
	t.Helper()
	if d == generator.Helm4 {
		return prereq.BuildHelmPeer(t, "v4.3.1")
	}
	return prereq.BuildHelmPeer(t, "v3.22.0")
}

func TestRegressions(t *testing.T) {
	root := moduleRoot(t)
	regs, err := runner.LoadRegressions(filepath.Join("testdata", "regressions"))
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) == 0 {
		t.Fatal("no regression cases in testdata/regressions")
	}
	ours := buildOurs(t, root)
	for _, reg := range regs {
		t.Run(reg.Name, func(t *testing.T) {
			c, err := reg.Case()
			if err != nil {
				t.Fatal(err)
			}
			r := runner.Runner{Ours: ours, Dialect: reg.Dialect}
			ctx := context.Background()
			if *update {
				r.Helm = helmPeer(t, reg.Dialect)
				helm, err := r.RunHelm(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if err := runner.WriteGolden(reg.Dir, helm); err != nil {
					t.Fatal(err)
				}
				reg.Want = helm
			}
			got, err := r.RunOurs(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			res := runner.Compare(reg.Want, got)
			if res.Differs() {
				t.Errorf("kubectl chart %s (%s) differs from Helm:\n%s", strings.Join(reg.Args, " "), reg.Dialect, res.Describe())
			}
		})
	}
}
