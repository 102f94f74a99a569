// Command benchcmp compares the wall time and peak memory of two chart renderers run as
// whole processes, the way a user runs them.
//
// For every chart it runs, from <corpus>/<chart>/, both binaries with the same arguments,
// interleaved (A, B, A, B, ...) so that machine noise hits both sides alike: first -warmup
// runs each that are not measured, then -runs measured ones. Standard output goes to
// /dev/null. It then prints one table row per chart with the median and minimum wall time
// and the peak resident set size of each side.
//
// With -c a third binary (a second reference) is run in the same rounds, its columns
// after B's; with -tsv every side's median and peak per chart are appended to a file,
// one line each (label, side, median seconds, peak MiB), for hack/bench.sh's summary.
//
// It only reports: a side that fails on a chart shows "error" in its columns (the first
// lines of its stderr go to stderr) and the other charts are still measured. The exit status
// is non-zero only for usage errors.
//
//	go run ./hack/benchcmp -corpus ../shared/conformance/corpus \
//		-a bin/kubectl-chart -b "$(hack/helm-peer.sh)" -charts argo-cd,istio-base \
//		-- template rel chart --namespace demo --kube-version 1.31.0
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// side is one of the two compared binaries.
type side struct {
	name string
	path string
}

// sample is the outcome of one measured run.
type sample struct {
	wall   time.Duration
	rssKiB int64
}

// result gathers a side's measurements on one chart; err is set once a run failed.
type result struct {
	samples []sample
	err     error
}

// stats summarizes a result.
type stats struct {
	median, min time.Duration
	peakKiB     int64
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchcmp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", "", "directory holding one directory per chart; commands run from `dir`/<chart>")
	charts := fs.String("charts", "", "comma-separated chart directories to measure (required)")
	aPath := fs.String("a", "", "binary of side A, the one under test (required)")
	bPath := fs.String("b", "", "binary of side B, the reference (required)")
	aName := fs.String("a-name", "kubectl-chart", "column label of side A")
	bName := fs.String("b-name", "helm", "column label of side B")
	cPath := fs.String("c", "", "binary of an optional side C, a second reference")
	cName := fs.String("c-name", "helm3", "column label of side C")
	tsv := fs.String("tsv", "", "append `file` one line per chart and side: label, side, median s, peak MiB")
	tsvLabel := fs.String("tsv-label", "{chart}", "label of the -tsv lines; {chart} stands for the chart")
	runs := fs.Int("runs", 15, "measured runs per side and chart")
	warmup := fs.Int("warmup", 2, "unmeasured warm-up runs per side and chart")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: benchcmp -corpus DIR -charts C1,C2 -a BIN -b BIN [flags] -- ARGS...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cmdArgs := fs.Args()
	switch {
	case *charts == "" || *aPath == "" || *bPath == "":
		fs.Usage()
		return errors.New("-charts, -a and -b are required")
	case len(cmdArgs) == 0:
		fs.Usage()
		return errors.New("no command arguments given (put them after --)")
	case *runs < 1 || *warmup < 0:
		return fmt.Errorf("-runs must be >= 1 and -warmup >= 0 (got %d and %d)", *runs, *warmup)
	}

	sides := []side{{name: *aName, path: *aPath}, {name: *bName, path: *bPath}}
	if *cPath != "" {
		sides = append(sides, side{name: *cName, path: *cPath})
	}
	for i := range sides {
		abs, err := resolveBinary(sides[i].path)
		if err != nil {
			return fmt.Errorf("side %s: %w", sides[i].name, err)
		}
		sides[i].path = abs
	}

	fmt.Fprintf(stderr, "benchcmp: %d runs + %d warm-up per side, interleaved; args: %s\n",
		*runs, *warmup, strings.Join(cmdArgs, " "))
	rows := [][]string{header(sides)}
	for _, chart := range strings.Split(*charts, ",") {
		chart = strings.TrimSpace(chart)
		if chart == "" {
			continue
		}
		dir := filepath.Join(*corpus, chart)
		fmt.Fprintf(stderr, "benchcmp: %s ...\n", chart)
		results := make([]result, len(sides))
		if _, err := os.Stat(dir); err != nil {
			for i := range results {
				results[i].err = fmt.Errorf("chart directory: %w", err)
			}
		} else {
			results = measure(dir, sides, cmdArgs, *warmup, *runs)
		}
		for i, r := range results {
			if r.err != nil {
				fmt.Fprintf(stderr, "benchcmp: %s: %s: %v\n", chart, sides[i].name, r.err)
			}
		}
		rows = append(rows, row(chart, results))
		if *tsv != "" {
			if err := appendTSV(*tsv, strings.ReplaceAll(*tsvLabel, "{chart}", chart), sides, results); err != nil {
				return err
			}
		}
	}
	printTable(stdout, rows)
	return nil
}

// appendTSV appends one line per side that succeeded: label, side, median seconds, peak MiB.
func appendTSV(path, label string, sides []side, results []result) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open -tsv file: %w", err)
	}
	for i, r := range results {
		if r.err != nil || len(r.samples) == 0 {
			continue
		}
		st := summarize(r.samples)
		fmt.Fprintf(f, "%s\t%s\t%.4f\t%.1f\n", label, sides[i].name, st.median.Seconds(), float64(st.peakKiB)/1024)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write -tsv file: %w", err)
	}
	return nil
}

// resolveBinary returns the absolute path of bin, looked up in PATH when it has no slash,
// since the commands run from another directory.
func resolveBinary(bin string) (string, error) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", bin, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("absolute path of %s: %w", path, err)
	}
	return abs, nil
}

// measure runs the sides in turn in dir: warmup unmeasured rounds, then runs measured
// ones. A side stops being run after its first failure; the others carry on.
func measure(dir string, sides []side, args []string, warmup, runs int) []result {
	results := make([]result, len(sides))
	for round := 0; round < warmup+runs; round++ {
		for i, s := range sides {
			if results[i].err != nil {
				continue
			}
			smp, err := runOnce(dir, s, args)
			if err != nil {
				results[i].err = err
				continue
			}
			if round >= warmup {
				results[i].samples = append(results[i].samples, smp)
			}
		}
		if !slices.ContainsFunc(results, func(r result) bool { return r.err == nil }) {
			break
		}
	}
	return results
}

// runOnce executes one process with stdout on /dev/null and returns its wall time and peak RSS.
func runOnce(dir string, s side, args []string) (sample, error) {
	cmd := exec.Command(s.path, args...)
	cmd.Dir = dir
	// A nil Stdout is connected to the null device: no pipe to drain, nothing to skew timing.
	var errBuf bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &errBuf, left: 4096}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("run %s: %w%s", s.name, err, firstLines(errBuf.String(), 3))
	}
	return sample{wall: wall, rssKiB: maxRSSKiB(cmd.ProcessState)}, nil
}

// firstLines formats up to n lines of a command's stderr for an error message.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return ""
	}
	if len(lines) > n {
		lines = lines[:n]
	}
	return "\n\t" + strings.Join(lines, "\n\t")
}

// limitedWriter keeps the first left bytes and discards the rest without failing the writer.
type limitedWriter struct {
	w    io.Writer
	left int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.left > 0 {
		n := min(len(p), l.left)
		if _, err := l.w.Write(p[:n]); err != nil {
			return 0, fmt.Errorf("buffer stderr: %w", err)
		}
		l.left -= n
	}
	return len(p), nil
}

func summarize(samples []sample) stats {
	walls := make([]time.Duration, len(samples))
	var st stats
	for i, s := range samples {
		walls[i] = s.wall
		st.peakKiB = max(st.peakKiB, s.rssKiB)
	}
	slices.Sort(walls)
	n := len(walls)
	st.min = walls[0]
	st.median = walls[n/2]
	if n%2 == 0 {
		st.median = (walls[n/2-1] + walls[n/2]) / 2
	}
	return st
}

// header names the columns: per side its median, then A's ratio to every other side,
// then per side its peak RSS and its minimum.
func header(sides []side) []string {
	a := sides[0].name
	out := []string{"chart"}
	for _, s := range sides {
		out = append(out, s.name+" median ms")
	}
	for _, s := range sides[1:] {
		out = append(out, "ratio ("+a+"/"+s.name+")")
	}
	for _, s := range sides {
		out = append(out, s.name+" peak RSS MiB")
	}
	for _, s := range sides {
		out = append(out, s.name+" min ms")
	}
	return out
}

func row(chart string, results []result) []string {
	const na = "error"
	n := len(results)
	out := []string{chart}
	medians := make([]string, n)
	peaks := make([]string, n)
	mins := make([]string, n)
	st := make([]stats, n)
	for i, r := range results {
		medians[i], peaks[i], mins[i] = na, na, na
		if r.err != nil || len(r.samples) == 0 {
			continue
		}
		st[i] = summarize(r.samples)
		medians[i] = ms(st[i].median)
		peaks[i] = fmt.Sprintf("%.1f", float64(st[i].peakKiB)/1024)
		mins[i] = ms(st[i].min)
	}
	out = append(out, medians...)
	for i := 1; i < n; i++ {
		ratio := na
		if medians[0] != na && medians[i] != na {
			ratio = fmt.Sprintf("%.2f", float64(st[0].median)/float64(st[i].median))
		}
		out = append(out, ratio)
	}
	out = append(out, peaks...)
	return append(out, mins...)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

// printTable writes rows as an aligned Markdown table, text left-aligned and numbers right-aligned.
func printTable(w io.Writer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	line := func(cells []string, pad func(i int, c string) string) {
		var sb strings.Builder
		sb.WriteString("|")
		for i, c := range cells {
			sb.WriteString(" " + pad(i, c) + " |")
		}
		fmt.Fprintln(w, sb.String())
	}
	left := func(i int, c string) string { return c + strings.Repeat(" ", widths[i]-len(c)) }
	right := func(i int, c string) string {
		if i == 0 {
			return left(i, c)
		}
		return strings.Repeat(" ", widths[i]-len(c)) + c
	}
	line(rows[0], left)
	sep := make([]string, len(widths))
	for i, n := range widths {
		sep[i] = strings.Repeat("-", n)
		if i > 0 {
			sep[i] = sep[i][:n-1] + ":"
		}
	}
	line(sep, left)
	for _, r := range rows[1:] {
		line(r, right)
	}
}
