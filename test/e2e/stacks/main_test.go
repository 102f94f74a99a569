//go:build e2e

// Package stacks tests `kubectl chart stack` end to end on two real control
// planes: the package's (the dev cluster's when $KUBECTL_CHART_TEST_KUBECONFIG
// is set) as kube context stacks-a, and one more started here as stacks-b,
// with the 12-release state file of testdata and Helm v4.3.1 reading every
// release.
package stacks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// env and second are the two control planes, bin the program; set once by
// TestMain and only read by tests.
var (
	env    *cluster.Env
	second *cluster.Env
	bin    string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	b, remove, err := prereq.BuildBinary("stacks")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	bin = b
	dir := filepath.Dir(bin)
	// The second control plane is always this package's own: the dev
	// cluster is one.
	ctx := context.Background()
	bins, err := cluster.Build(ctx, cluster.BuildOptions{Log: os.Stderr})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot build the control plane: %v\n", err)
		return 1
	}
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	c, err := cluster.Start(startCtx, cluster.Options{Binaries: bins, StateDir: filepath.Join(dir, "second"), Log: os.Stderr})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: second control plane: %v\n", err)
		return 1
	}
	defer func() {
		if err := c.Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stop the second control plane: %v\n", err)
		}
	}()
	if second, err = cluster.NewEnv(c.Kubeconfig); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	return cluster.Main(m, func(e *cluster.Env) { env = e })
}
