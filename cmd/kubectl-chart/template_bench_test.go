package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// BenchmarkTemplateCommand runs the whole `template` command in-process on
// corpus charts, as the conformance gate does (chart load, values, schema,
// render, sorting, output), so that a profile shows every part of its path
// (go test -bench TemplateCommand -cpuprofile ...). CONFORMANCE overrides the
// corpus location.
func BenchmarkTemplateCommand(b *testing.B) {
	corpus := filepath.Join(prereq.Corpus(b), "corpus")
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	b.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	b.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	for _, id := range []string{"kube-prometheus-stack", "argo-cd", "istio-base"} {
		b.Run(id, func(b *testing.B) {
			args := []string{"template", "rel", filepath.Join(corpus, id, "chart"),
				"--namespace", "demo", "--kube-version", "1.31.0"}
			b.ReportAllocs()
			for b.Loop() {
				var errOut strings.Builder
				streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut}
				root := NewRootCmd(streams, BuildInfo{Version: "bench"})
				root.SetArgs(args)
				if err := root.Execute(); err != nil {
					b.Fatalf("template %s: %v: %s", id, err, errOut.String())
				}
			}
		})
	}
}
