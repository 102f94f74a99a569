//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/domain/values"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// BenchmarkBudget renders the templates of corpus charts with the render
// budget and without it, in turns: what the budget costs in processor time
// ("cost-%"). make bench prints it (hack/bench.sh budget).
// kube-prometheus-stack renders without its subcharts, which the corpus copy
// lacks.
func BenchmarkBudget(b *testing.B) {
	corpus := filepath.Join(prereq.Corpus(b), "corpus")
	for _, id := range []string{"kube-prometheus-stack", "argo-cd", "bitnami-redis"} {
		ch, err := loader.LoadDir(os.DirFS(filepath.Join(corpus, id, "chart")), loader.DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		if err := values.ProcessDependencies(ch, map[string]any{}, nil); err != nil {
			b.Fatal(err)
		}
		top, err := render.Values(context.Background(), ch, map[string]any{},
			render.ReleaseOptions{Name: "rel", Namespace: "demo", Revision: 1, IsInstall: true}, capabilities.Default(""), false, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(id, func(b *testing.B) {
			on, off := engine.Engine{}, engine.Unmetered(engine.Engine{})
			var onTotal, offTotal time.Duration
			for i := 0; b.Loop(); i++ {
				// Each iteration renders with and without the budget, in turns
				// first: the machine's load changes alike for both.
				first, second := on, off
				if i%2 == 1 {
					first, second = off, on
				}
				d1, d2 := timeRender(b, first, ch, top), timeRender(b, second, ch, top)
				if i%2 == 1 {
					d1, d2 = d2, d1
				}
				onTotal, offTotal = onTotal+d1, offTotal+d2
			}
			n := float64(b.N)
			b.ReportMetric(float64(onTotal)/1e6/n, "on-cpu-ms/op")
			b.ReportMetric(float64(offTotal)/1e6/n, "off-cpu-ms/op")
			b.ReportMetric((float64(onTotal)/float64(offTotal)-1)*100, "cost-%")
		})
	}
}

// timeRender is the processor time e takes to render ch (all threads, the
// collector's included): unlike wall time, it does not grow with what else
// the machine runs.
func timeRender(b *testing.B, e engine.Engine, ch *chart.Chart, top values.Values) time.Duration {
	start := cpuTime(b)
	if _, err := e.RenderContext(context.Background(), ch, top); err != nil {
		b.Fatal(err)
	}
	return cpuTime(b) - start
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
