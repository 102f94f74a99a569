// Package sequences runs the differential tester's release-command mode:
// generated sequences of install, upgrade, rollback, test, uninstall and the
// read commands, each run by Helm and by kubectl-chart installed as helm on
// one cluster, step by step; every difference is shrunk to a minimal
// sequence and printed as files and a command list.
package sequences

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/shrinker"
)

// Config is one dialect's run.
type Config struct {
	Seed    uint64
	Count   int   // sequences 0..Count-1, unless Only names some
	Only    []int // sequence numbers to run instead
	Dialect generator.Dialect
	Jobs    int // sequences run at once
	// Helm is the dialect's Helm, Ours kubectl-chart's binary.
	Helm, Ours string
	Kubeconfig string
	Client     dynamic.Interface
	// Prefix starts every namespace's name; it must be unique to the run.
	Prefix string
	// MaxShrink differences are shrunk, with ShrinkTries candidates each.
	MaxShrink, ShrinkTries int
}

// Summary counts a run.
type Summary struct {
	Sequences, Steps, Differences int
	// HelmFailed counts the steps where Helm exited non-zero.
	HelmFailed int
	// Classes counts the differences by the command and aspects that differ.
	Classes map[string]int
}

type found struct {
	seq generator.Sequence
	res runner.SequenceResult
}

// Run runs the sequences, then shrinks and prints their differences to w.
func Run(ctx context.Context, cfg Config, w io.Writer) (Summary, error) {
	g := generator.New(cfg.Seed, cfg.Dialect)
	var ids atomic.Int64
	r := runner.SequenceRunner{Helm: cfg.Helm, Ours: cfg.Ours, Dialect: cfg.Dialect, Kubeconfig: cfg.Kubeconfig, Client: cfg.Client, Prefix: cfg.Prefix}
	run := func(ctx context.Context, s generator.Sequence) (runner.SequenceResult, error) {
		return r.Run(ctx, s, int(ids.Add(1)))
	}
	numbers := cfg.Only
	if numbers == nil {
		for i := 0; i < cfg.Count; i++ {
			numbers = append(numbers, i)
		}
	}
	results := make([]*found, len(numbers))
	errs := make([]error, len(numbers))
	sum := Summary{Classes: map[string]int{}}
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < max(cfg.Jobs, 1); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := g.Sequence(numbers[i])
				res, err := run(ctx, s)
				if err != nil {
					errs[i] = fmt.Errorf("sequence %s: %w", s.Name, err)
					continue
				}
				mu.Lock()
				sum.Sequences++
				sum.Steps += len(res.Steps)
				for _, st := range res.Steps {
					if st.Helm.Exit != 0 {
						sum.HelmFailed++
					}
				}
				mu.Unlock()
				if res.Differs() {
					results[i] = &found{seq: s, res: res}
				}
			}
		}()
	}
	start := time.Now()
feed:
	for i := range numbers {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return sum, err
		}
	}
	fmt.Fprintf(w, "difftest %s sequences: seed %d, %d sequences (%d steps, %d of them failing in Helm) run in %s\n",
		cfg.Dialect, cfg.Seed, sum.Sequences, sum.Steps, sum.HelmFailed, time.Since(start).Round(time.Second))
	shrunk := 0
	for _, f := range results {
		if f == nil {
			continue
		}
		sum.Differences++
		sum.Classes[class(f.res)]++
		s, res := f.seq, f.res
		if shrunk < cfg.MaxShrink {
			shrunk++
			s = shrinker.ShrinkSequence(ctx, f.seq, shrinker.SameDifference(run, f.res), cfg.ShrinkTries)
			if again, err := run(ctx, s); err == nil && again.Differs() {
				res = again
			} else {
				s = f.seq
			}
		}
		fmt.Fprintf(w, "\n=== difference %s (%s, seed %d)\n%s%s", f.seq.Name, cfg.Dialect, cfg.Seed, res.Describe(), s.String())
	}
	return sum, nil
}

// class names a difference by the command of its step and what differs.
func class(res runner.SequenceResult) string {
	st := res.Steps[res.Step]
	cmd := st.Args[0]
	if cmd == "get" && len(st.Args) > 1 {
		cmd += " " + st.Args[1]
	}
	return cmd + ": " + strings.Join(res.Aspects, ",")
}
