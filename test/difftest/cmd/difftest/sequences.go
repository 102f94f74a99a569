package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/sequences"
)

// runSequences is the release-command mode: o.sequences sequences per
// dialect on the cluster of -kubeconfig (else $KUBECTL_CHART_TEST_KUBECONFIG,
// else a control plane started for the run).
func runSequences(ctx context.Context, o options, w io.Writer) (bool, error) {
	kubeconfig := o.kubeconfig
	if kubeconfig == "" {
		kubeconfig = os.Getenv(cluster.KubeconfigEnv)
	}
	if kubeconfig == "" {
		c, stop, err := startCluster(ctx)
		if err != nil {
			return false, err
		}
		defer stop()
		kubeconfig = c.Kubeconfig
	}
	env, err := cluster.NewEnv(kubeconfig)
	if err != nil {
		return false, err
	}
	var tag [3]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return false, err
	}
	failed := false
	for _, d := range o.dialects {
		helm, err := o.helmFor(d)
		if err != nil {
			return false, err
		}
		cfg := sequences.Config{
			Seed: o.seed, Count: o.sequences, Only: o.only, Dialect: d, Jobs: o.jobs,
			Helm: helm, Ours: o.ours, Kubeconfig: kubeconfig, Client: env.Dynamic(),
			Prefix:    fmt.Sprintf("dt%s-%s", hex.EncodeToString(tag[:]), d[len(d)-1:]),
			MaxShrink: o.maxShrink, ShrinkTries: o.shrinkTries / 4,
		}
		sum, err := sequences.Run(ctx, cfg, w)
		if err != nil {
			return false, err
		}
		printClasses(w, sum.Classes)
		fmt.Fprintf(w, "difftest %s: %d sequences, %d differences\n", d, sum.Sequences, sum.Differences)
		failed = failed || sum.Differences > 0
	}
	return failed, nil
}

func printClasses(w io.Writer, classes map[string]int) {
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%6d %s\n", classes[k], k)
	}
}

// startCluster starts a throw-away control plane for the run.
func startCluster(ctx context.Context) (*cluster.Cluster, func(), error) {
	bins, err := cluster.Build(ctx, cluster.BuildOptions{Log: os.Stderr})
	if err != nil {
		return nil, nil, fmt.Errorf("build the control plane: %w", err)
	}
	dir, err := os.MkdirTemp("", "kubectl-chart-difftest-")
	if err != nil {
		return nil, nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	c, err := cluster.Start(startCtx, cluster.Options{Binaries: bins, StateDir: dir, Log: os.Stderr})
	if err != nil {
		return nil, nil, fmt.Errorf("%w (logs in %s)", err, dir)
	}
	return c, func() {
		if err := c.Stop(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "difftest:", err)
		}
		_ = os.RemoveAll(dir)
	}, nil
}
