//go:build e2e

// Package dropin proves that helmfile and chart-testing drive kubectl-chart
// installed as `helm` unchanged: each scenario runs twice on the same input,
// once with the real Helm as `helm` on PATH and once with a `helm` link to
// kubectl-chart, each side in namespaces and Helm homes of its own, and each
// step compares exit status, the tool's stdout and stderr, the objects in the
// cluster and the release records as the real Helm reads them back (times,
// durations, uids, generated names and namespace names masked). The same runs
// for the Helm 4 dialect against Helm v4.3.1 and the Helm 3 dialect
// (KUBECTL_CHART_COMPAT=helm3) against Helm v3.22.0.
package dropin

import (
	"fmt"
	"os"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// env and bin are set once by TestMain and only read by tests.
var (
	env *cluster.Env
	bin string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	b, remove, err := prereq.BuildBinary("dropin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	bin = b
	return cluster.Main(m, func(e *cluster.Env) { env = e })
}
