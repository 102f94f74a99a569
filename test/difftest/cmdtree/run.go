package cmdtree

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

// Config is one dialect's run of the axis.
type Config struct {
	Dialect generator.Dialect
	// Helm is the dialect's Helm, Other the other one (its tree adds probes).
	Helm, Other string
	// Ours is kubectl-chart under the name helm (a link), as installed as helm.
	Ours string
	// Probes is how many probes to draw by Seed; negative: all.
	Probes int
	Seed   uint64
	Jobs   int
	// Only keeps the probes of these command paths and those below them
	// (all when empty), drawn after sampling.
	Only []string
}

// Summary is a run's account.
type Summary struct {
	Probes      int
	Differences []Difference
}

// timeout bounds one run of a program on a probe: every probe ends at
// parsing the command line or in help.
const timeout = 20 * time.Second

// Execute walks the three trees, runs the probes through the dialect's
// Helm and ours, and returns the differences.
func Execute(ctx context.Context, cfg Config) (Summary, error) {
	helm := program(cfg.Helm, cfg.Dialect)
	var trees []Tree
	for _, run := range []Run{helm, program(cfg.Other, cfg.Dialect), program(cfg.Ours, cfg.Dialect)} {
		t, err := Walk(ctx, run, HelmHidden().Commands)
		if err != nil {
			return Summary{}, err
		}
		trees = append(trees, t)
	}
	probes := Under(Sample(Probes(trees, HelmHidden()), cfg.Probes, cfg.Seed), cfg.Only)
	ours := program(cfg.Ours, cfg.Dialect)
	diffs := make([]*Difference, len(probes))
	errs := make([]error, len(probes))
	next := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < max(cfg.Jobs, 1); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				h, err := outcome(ctx, helm, probes[i].Args)
				if err != nil {
					errs[i] = err
					continue
				}
				o, err := outcome(ctx, ours, probes[i].Args)
				if err != nil {
					errs[i] = err
					continue
				}
				if d, ok := Compare(probes[i], h, o); !ok {
					diffs[i] = &d
				}
			}
		}()
	}
	for i := range probes {
		next <- i
	}
	close(next)
	wg.Wait()
	sum := Summary{Probes: len(probes)}
	for i, d := range diffs {
		if errs[i] != nil {
			return sum, errs[i]
		}
		if d != nil {
			sum.Differences = append(sum.Differences, *d)
		}
	}
	return sum, nil
}

// Report prints the differences (those of help probes, one a command, and
// the first few of each other class in full, the rest a line each) and the
// count of each class.
func (s Summary) Report(w io.Writer, perClass int) {
	classes := map[string]int{}
	for _, d := range s.Differences {
		c := d.Class()
		classes[c]++
		if classes[c] <= perClass || d.Probe.Kind == "help" {
			fmt.Fprintf(w, "\n=== difference (%s)\n%s", c, d.Describe())
		} else {
			fmt.Fprintf(w, "=== difference (%s) %s | helm %d %q | ours %d %q\n", c, d.Probe, d.Helm.Exit, firstLine(d.Helm.Stderr), d.Ours.Exit, firstLine(d.Ours.Stderr))
		}
	}
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%6d %s\n", classes[k], k)
	}
}

func outcome(ctx context.Context, run Run, args []string) (Outcome, error) {
	stdout, stderr, exit, err := run(ctx, args)
	return Outcome{Stdout: stdout, Stderr: stderr, Exit: exit}, err
}

// program runs bin in a home of its own, in dialect d's environment; where
// an output names the home, it reads $HOME.
func program(bin string, d generator.Dialect) Run {
	return func(ctx context.Context, args []string) (string, string, int, error) {
		home, err := os.MkdirTemp("", "difftest-cmdtree-")
		if err != nil {
			return "", "", 0, err
		}
		defer os.RemoveAll(home)
		out, err := runner.Exec(ctx, bin, args, home, runner.Env(filepath.Join(home, "home"), d), timeout)
		if err != nil {
			return "", "", 0, fmt.Errorf("run %s %s: %w", bin, strings.Join(args, " "), err)
		}
		if out.Hung {
			return "", "", 0, fmt.Errorf("%s %s: no end within %s", bin, strings.Join(args, " "), timeout)
		}
		mask := strings.NewReplacer(home, "$HOME")
		return mask.Replace(out.Stdout), mask.Replace(out.Stderr), out.Exit, nil
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
