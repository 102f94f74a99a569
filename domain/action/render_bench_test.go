package action_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// corpusDir locates the shared conformance corpus (CONFORMANCE overrides).
func corpusDir(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("CONFORMANCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "conformance")
	}
	dir = filepath.Join(dir, "corpus")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("conformance corpus not found at %s (set CONFORMANCE)", dir)
	}
	return dir
}

// BenchmarkRender loads and renders corpus charts in-process, as `template` does
// in the Helm 3 dialect (RenderRequest's zero value).
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
				if _, err := action.Render(context.Background(), action.RenderRequest{
					Chart: ch, Values: map[string]any{}, ReleaseName: "rel", Namespace: "demo",
					Revision: 1, Capabilities: caps, Dialect: d,
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
