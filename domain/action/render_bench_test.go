package action_test

import (
	"context"
	"io/fs"
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

// vendoredFromCorpus lists dependencies that the corpus copy of a chart lacks
// (its .gitignore kept charts/*.tgz out) but that the corpus holds as charts of
// their own, at the same versions. Dependencies that are disabled by default get
// a stub so the chart loads as it would with `helm dependency build`.
var vendoredFromCorpus = map[string]struct {
	fromCorpus []string
	stubs      map[string]string
}{
	"kube-prometheus-stack": {
		fromCorpus: []string{"kube-state-metrics", "prometheus-node-exporter", "grafana"},
		stubs:      map[string]string{"prometheus-windows-exporter": "0.12.8"},
	},
}

// benchChart returns the chart of a corpus case, its dependencies restored.
func benchChart(b *testing.B, corpus, id string) fs.FS {
	b.Helper()
	src := filepath.Join(corpus, id, "chart")
	deps, ok := vendoredFromCorpus[id]
	if !ok {
		return os.DirFS(src)
	}
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	for _, dep := range deps.fromCorpus {
		target := filepath.Join(dir, "charts", dep)
		if err := os.CopyFS(target, os.DirFS(filepath.Join(corpus, dep, "chart"))); err != nil {
			b.Fatal(err)
		}
	}
	// The packaged grafana chart leaves its tests out (its .helmignore).
	if err := os.RemoveAll(filepath.Join(dir, "charts", "grafana", "templates", "tests")); err != nil {
		b.Fatal(err)
	}
	for name, version := range deps.stubs {
		stub := filepath.Join(dir, "charts", name)
		if err := os.MkdirAll(stub, 0o755); err != nil {
			b.Fatal(err)
		}
		meta := "apiVersion: v2\nname: " + name + "\nversion: " + version + "\n"
		if err := os.WriteFile(filepath.Join(stub, "Chart.yaml"), []byte(meta), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return os.DirFS(dir)
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
			fsys := benchChart(b, corpus, id)
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
