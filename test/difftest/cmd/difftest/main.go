// Command difftest runs generated cases through Helm and kubectl-chart in one or both dialects,
// shrinks every difference to a minimal reproducer, prints it in full and (with -write) stores it
// as a regression case with Helm's output as its golden. Its last line per dialect reads
// `difftest DIALECT: N cases, M differences`; it exits 1 when a dialect has differences.
package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/shrinker"
)

type options struct {
	cases       int
	seed        uint64
	seedSet     bool
	dialects    []generator.Dialect
	jobs        int
	helm3       string
	helm4       string
	ours        string
	write       string
	maxShrink   int
	shrinkTries int
	stats       bool
	dump        string
	dumpCase    int
	only        []int
	postRender  bool
	sequences   int
	kubeconfig  string
	cmdtree     int
	cmdtreeOnly []string
}

func main() {
	o, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	failed, err := run(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

func parse(args []string) (options, error) {
	var o options
	var dialect, seed string
	fs := flag.NewFlagSet("difftest", flag.ContinueOnError)
	fs.IntVar(&o.cases, "cases", 200, "cases per dialect")
	fs.StringVar(&seed, "seed", "", "seed (default: a fresh one, printed)")
	fs.StringVar(&dialect, "dialect", "both", "helm3, helm4 or both")
	fs.IntVar(&o.jobs, "j", 2, "cases run in parallel")
	fs.StringVar(&o.helm3, "helm3", "", "Helm v3.22.0 binary")
	fs.StringVar(&o.helm4, "helm4", "", "Helm v4.3.1 binary")
	fs.StringVar(&o.ours, "bin", "bin/kubectl-chart", "kubectl-chart binary")
	fs.StringVar(&o.write, "write", "", "directory to store shrunk reproducers in as regression cases (none when empty)")
	fs.IntVar(&o.maxShrink, "max-shrink", 10, "differences shrunk per dialect; later ones are printed as drawn")
	fs.IntVar(&o.shrinkTries, "shrink-tries", 600, "candidates tried when shrinking one difference")
	fs.BoolVar(&o.stats, "stats", false, "print how often each of Helm's first error lines (cut at 70 bytes) came up")
	fs.StringVar(&o.dump, "dump", "", "write case -case of the first dialect into this directory, print its command line, and stop")
	fs.IntVar(&o.dumpCase, "case", 0, "the case -dump writes")
	fs.BoolVar(&o.postRender, "postrender", false, "draw only template commands, each with a post-renderer")
	fs.IntVar(&o.sequences, "sequences", 0, "run this many release-command sequences per dialect on a cluster instead of cases")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the cluster for -sequences (default $KUBECTL_CHART_TEST_KUBECONFIG, else a control plane started for the run)")
	fs.IntVar(&o.cmdtree, "cmdtree", 0, "also run this many command-availability probes per dialect, drawn by the seed (-1: all)")
	var only, cmdtreeOnly string
	fs.StringVar(&cmdtreeOnly, "cmdtree-filter", "", "comma-separated command paths (\"install,repo add\"): only their probes and those below them")
	fs.StringVar(&only, "only", "", "comma-separated case numbers to run instead of 0..cases-1")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, p := range strings.Split(cmdtreeOnly, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.cmdtreeOnly = append(o.cmdtreeOnly, p)
		}
	}
	for _, f := range strings.FieldsFunc(only, func(r rune) bool { return r == ',' }) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil {
			return o, fmt.Errorf("invalid -only %q: %w", only, err)
		}
		o.only = append(o.only, n)
	}
	switch dialect {
	case "helm3":
		o.dialects = []generator.Dialect{generator.Helm3}
	case "helm4":
		o.dialects = []generator.Dialect{generator.Helm4}
	case "both", "":
		o.dialects = []generator.Dialect{generator.Helm3, generator.Helm4}
	default:
		return o, fmt.Errorf("invalid -dialect %q: want helm3, helm4 or both", dialect)
	}
	if seed != "" {
		if _, err := fmt.Sscan(seed, &o.seed); err != nil {
			return o, fmt.Errorf("invalid -seed %q: %w", seed, err)
		}
		o.seedSet = true
	}
	for _, p := range []*string{&o.ours, &o.helm3, &o.helm4} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return o, err
			}
			*p = abs
		}
	}
	if o.jobs < 1 {
		o.jobs = 1
	}
	return o, nil
}

func run(ctx context.Context, o options, w io.Writer) (bool, error) {
	if !o.seedSet {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return false, err
		}
		o.seed = binary.LittleEndian.Uint64(b[:]) % 1_000_000_000
		fmt.Fprintf(w, "difftest: fresh seed %d (repeat with DIFFTEST_SEED=%d)\n", o.seed, o.seed)
	}
	if o.dump != "" {
		c := o.generator(o.dialects[0]).Case(o.dumpCase)
		fmt.Fprintln(w, strings.Join(c.Argv(), " "))
		return false, c.Write(o.dump)
	}
	if o.sequences > 0 {
		return runSequences(ctx, o, w)
	}
	failed := false
	for _, d := range o.dialects {
		helm, err := o.helmFor(d)
		if err != nil {
			return false, err
		}
		r := runner.Runner{Helm: helm, Ours: o.ours, Dialect: d}
		n, diffs, err := runDialect(ctx, o, r, d, w)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(w, "difftest %s: %d cases, %d differences\n", d, n, diffs)
		failed = failed || diffs > 0
		if o.cmdtree != 0 {
			differs, err := runCmdtree(ctx, o, d, w)
			if err != nil {
				return false, err
			}
			failed = failed || differs
		}
	}
	return failed, nil
}

type found struct {
	c   generator.Case
	res runner.Result
}

// runDialect runs o.cases cases of one dialect, o.jobs at a time, then shrinks and prints the differences.
func runDialect(ctx context.Context, o options, r runner.Runner, d generator.Dialect, w io.Writer) (int, int, error) {
	g := o.generator(d)
	numbers := o.only
	if numbers == nil {
		for i := 0; i < o.cases; i++ {
			numbers = append(numbers, i)
		}
	}
	results := make([]*found, len(numbers))
	errs := make([]error, len(numbers))
	next := make(chan int)
	var wg sync.WaitGroup
	var helmOK atomic.Int64
	var mu sync.Mutex
	errCount := map[string]int{}
	for j := 0; j < o.jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := g.Case(numbers[i])
				res, err := r.Run(ctx, c)
				if err != nil {
					errs[i] = err
					continue
				}
				if res.Helm.Exit == 0 {
					helmOK.Add(1)
				}
				mu.Lock()
				e := res.Helm.ErrLine
				if len(e) > 70 {
					e = e[:70]
				}
				errCount[e]++
				mu.Unlock()
				if res.Differs() {
					results[i] = &found{c: c, res: res}
				}
			}
		}()
	}
	ran := 0
	start := time.Now()
feed:
	for i := range numbers {
		select {
		case next <- i:
			ran++
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return ran, 0, err
		}
	}
	fmt.Fprintf(w, "difftest %s: seed %d, %d cases run in %s, %d of them succeed in Helm\n", d, o.seed, ran, time.Since(start).Round(time.Second), helmOK.Load())
	if o.stats {
		printStats(w, errCount)
	}
	diffs, shrunk := 0, 0
	for _, f := range results {
		if f == nil {
			continue
		}
		diffs++
		c, res := f.c, f.res
		if shrunk < o.maxShrink {
			shrunk++
			c, res = shrinkCase(ctx, r, f, o.shrinkTries)
		}
		fmt.Fprintf(w, "\n=== difference %s (%s, seed %d)\n%s%s", f.c.Name, d, o.seed, res.Describe(), c.String())
		if o.write != "" {
			dir, err := runner.WriteRegression(o.write, c.Name, d, c, res.Helm)
			if err != nil {
				return ran, diffs, err
			}
			fmt.Fprintf(w, "stored as %s\n", dir)
		}
	}
	return ran, diffs, nil
}

// shrinkCase shrinks a difference while the same aspects differ, and runs the result again.
func shrinkCase(ctx context.Context, r runner.Runner, f *found, tries int) (generator.Case, runner.Result) {
	c := shrinker.Shrink(ctx, f.c, shrinker.SameDifference(r.Run, f.res), tries)
	res, err := r.Run(ctx, c)
	if err != nil || !res.Differs() {
		return f.c, f.res
	}
	return c, res
}

func printStats(w io.Writer, counts map[string]int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	for _, k := range keys {
		fmt.Fprintf(w, "%6d %s\n", counts[k], k)
	}
}

// generator draws the cases of dialect d as the options ask.
func (o options) generator(d generator.Dialect) generator.Generator {
	g := generator.New(o.seed, d)
	if o.postRender {
		g = g.PostRenderOnly()
	}
	return g
}

// helmFor is the Helm binary of dialect d.
func (o options) helmFor(d generator.Dialect) (string, error) {
	helm := o.helm3
	if d == generator.Helm4 {
		helm = o.helm4
	}
	if helm == "" {
		return "", fmt.Errorf("no Helm binary for %s (-%s)", d, d)
	}
	return helm, nil
}
