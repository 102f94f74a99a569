package render_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// corpusDir is the shared conformance corpus's charts.
func corpusDir(b *testing.B) string {
	b.Helper()
	return filepath.Join(prereq.Corpus(b), "corpus")
}

// BenchmarkRender loads and renders corpus charts in-process, as `template` does
// in the Helm 3 dialect (Request's zero value).
func BenchmarkRender(b *testing.B) { benchmarkRender(b, dialect.Helm3) }

// BenchmarkRenderHelm4 is BenchmarkRender in the Helm 4 dialect.
func BenchmarkRenderHelm4(b *testing.B) { benchmarkRender(b, dialect.Helm4) }

func benchmarkRender(b *testing.B, d dialect.Dialect) {
	corpus := corpusDir(b)
	kube, err := capabilities.ParseKubeVersion("1.31.0")
	if err != nil {
		b.Fatal(err)
	}
	caps := capabilities.Default("")
	caps.KubeVersion = *kube
	for _, id := range []string{"kube-prometheus-stack", "argo-cd", "istio-base"} {
		b.Run(id, func(b *testing.B) {
			fsys := os.DirFS(filepath.Join(corpus, id, "chart"))
			b.ReportAllocs()
			for b.Loop() {
				ch, err := loader.LoadDir(fsys, loader.LimitsFor(d))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := render.Chart(context.Background(), render.Request{
					Chart: ch, Values: map[string]any{}, ReleaseName: "rel", Namespace: "demo",
					Revision: 1, Capabilities: caps, Dialect: d,
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
