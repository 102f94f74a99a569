//go:build e2e

// Package chaos is the fault suite: on a real control plane it kills our
// binary with SIGKILL at seeded random points of every operation, restarts
// the API server in the middle of upgrades, puts a fault-injecting proxy
// between us and the API server, races upgrades against each other and
// against Helm, and kills writers of the bbolt store. After each fault the
// same command run again must succeed with no manual step, keep every
// revision, leave exactly one deployed, and Helm v3.22.0 and v4.3.1 must read
// the history.
//
// `make test` runs a bounded version (about 3 minutes); `make chaos`
// (KUBECTL_CHART_CHAOS=full) the full one. KUBECTL_CHART_CHAOS_SEED repeats a
// run's random choices (the seed is printed with the summary table, which is
// also written to $KUBECTL_CHART_CHAOS_SUMMARY, by default
// $TMPDIR/kubectl-chart-chaos-summary.txt).
package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/cluster"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// Environment of the suite.
const (
	modeEnv    = "KUBECTL_CHART_CHAOS"         // "full" for `make chaos`
	seedEnv    = "KUBECTL_CHART_CHAOS_SEED"    // repeats a run's random choices
	summaryEnv = "KUBECTL_CHART_CHAOS_SUMMARY" // where the summary table goes
)

// env and bin are set once by TestMain and only read by tests.
var (
	env  *cluster.Env
	bin  string
	full bool
	seed uint64
)

func TestMain(m *testing.M) {
	if os.Getenv(bboltWriterEnv) != "" {
		os.Exit(bboltWriter())
	}
	full = os.Getenv(modeEnv) == "full"
	seed = 15
	if full {
		seed = uint64(time.Now().UnixNano() % 100000)
	}
	if s := os.Getenv(seedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chaos: %s=%q: %v\n", seedEnv, s, err)
			os.Exit(2)
		}
		seed = n
	}
	b, remove, err := prereq.BuildBinary("chaos")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := cluster.Main(m, func(e *cluster.Env) { env = e })
	remove()
	writeSummary()
	os.Exit(code)
}

func chartDir() string {
	return filepath.Join(prereq.ModuleRoot(), "test", "e2e", "chaos", "testdata", "chaos")
}

// pick returns the bounded or the full value.
func pick[T any](bounded, whole T) T {
	if full {
		return whole
	}
	return bounded
}

// row is one line of the summary table.
type row struct {
	trials, recovered, lost int
	worst                   time.Duration
	notes                   map[string]int
	text                    []string
}

var summary = struct {
	sync.Mutex
	rows  map[string]*row
	order []string
}{rows: map[string]*row{}}

func summaryRow(scenario string) *row {
	r := summary.rows[scenario]
	if r == nil {
		r = &row{notes: map[string]int{}}
		summary.rows[scenario] = r
		summary.order = append(summary.order, scenario)
	}
	return r
}

// trial records one trial of a scenario: whether the system recovered
// (the retry converged with every invariant held), how long recovery took,
// how many revisions were lost, and notes to count (the kill point).
func trial(scenario string, recovered bool, took time.Duration, lost int, notes ...string) {
	summary.Lock()
	defer summary.Unlock()
	r := summaryRow(scenario)
	r.trials++
	if recovered {
		r.recovered++
	}
	r.lost += lost
	r.worst = max(r.worst, took)
	for _, n := range notes {
		if n != "" {
			r.notes[n]++
		}
	}
}

// noteText adds free text to a scenario's notes.
func noteText(scenario, text string) {
	summary.Lock()
	defer summary.Unlock()
	r := summaryRow(scenario)
	r.text = append(r.text, text)
}

func writeSummary() {
	summary.Lock()
	defer summary.Unlock()
	if len(summary.order) == 0 {
		return
	}
	var b strings.Builder
	mode := "bounded (make test)"
	if full {
		mode = "full (make chaos)"
	}
	fmt.Fprintf(&b, "\nchaos summary: %s, seed %d (%s=%d repeats it)\n", mode, seed, seedEnv, seed)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIO\tTRIALS\tRECOVERED\tWORST RECOVERY\tREVISIONS LOST\tNOTES")
	total := row{}
	for _, name := range summary.order {
		r := summary.rows[name]
		total.trials += r.trials
		total.recovered += r.recovered
		total.lost += r.lost
		total.worst = max(total.worst, r.worst)
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%d\t%s\n", name, r.trials, r.recovered, r.worst.Round(10*time.Millisecond), r.lost, notes(r))
	}
	fmt.Fprintf(w, "total\t%d\t%d\t%s\t%d\t\n", total.trials, total.recovered, total.worst.Round(10*time.Millisecond), total.lost)
	_ = w.Flush()
	fmt.Print(b.String())
	path := os.Getenv(summaryEnv)
	if path == "" {
		path = filepath.Join(os.TempDir(), "kubectl-chart-chaos-summary.txt")
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
}

func notes(r *row) string {
	keys := make([]string, 0, len(r.notes))
	for k := range r.notes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.notes[k]))
	}
	parts = append(parts, r.text...)
	return strings.Join(parts, ", ")
}
