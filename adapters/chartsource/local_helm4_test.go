package chartsource_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

func writeTgz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Helm 4 reads a chart's API version before it loads the chart. Expected errors
// are Helm v4.3.1's and v3.22.0's for the same chart (`helm template r PATH`);
// "" is no error.
func TestLocalAPIVersionByDialect(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]struct {
		chartYAML    string // "" is no Chart.yaml
		helm4, helm3 string
	}{
		"v2":            {chartYAML: "apiVersion: v2\nname: c\nversion: 0.1.0\n"},
		"v3 loads":      {chartYAML: "apiVersion: v3\nname: c\nversion: 0.1.0\n"},
		"unknown":       {chartYAML: "apiVersion: v9\nname: c\nversion: 0.1.0\n", helm4: "unsupported chart version"},
		"broken":        {chartYAML: "apiVersion: [\n", helm4: "cannot load Chart.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content", helm3: "cannot load Chart.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content"},
		"no Chart.yaml": {helm4: "unable to detect chart at %s: open %[1]s: no such file or directory", helm3: "Chart.yaml file is missing"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			chartDir := filepath.Join(dir, name, "c")
			if err := os.MkdirAll(chartDir, 0o755); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{"c/values.yaml": "a: 1\n"}
			if err := os.WriteFile(filepath.Join(chartDir, "values.yaml"), []byte("a: 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.chartYAML != "" {
				files["c/Chart.yaml"] = tc.chartYAML
				if err := os.WriteFile(filepath.Join(chartDir, "Chart.yaml"), []byte(tc.chartYAML), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			archive := filepath.Join(dir, name, "c.tgz")
			writeTgz(t, archive, files)
			for _, c := range []struct {
				d    dialect.Dialect
				want string
			}{{dialect.Helm4, tc.helm4}, {dialect.Helm3, tc.helm3}} {
				src := chartsource.Local{Limits: loader.LimitsFor(c.d)}
				_, err := src.LoadChart(context.Background(), chartDir)
				want := c.want
				if name == "no Chart.yaml" && c.d.IsHelm4() {
					want = "unable to detect chart at " + filepath.Join(chartDir, "Chart.yaml") + ": open " + filepath.Join(chartDir, "Chart.yaml") + ": no such file or directory"
				}
				if got := errText(err); got != want {
					t.Errorf("%s directory: error %q, want %q", c.d, got, want)
				}
				_, err = src.LoadChart(context.Background(), archive)
				want = c.want
				if name == "no Chart.yaml" {
					want = map[dialect.Dialect]string{dialect.Helm4: "unable to detect chart version, no Chart.yaml found", dialect.Helm3: "Chart.yaml file is missing"}[c.d]
				}
				if got := errText(err); got != want {
					t.Errorf("%s archive: error %q, want %q", c.d, got, want)
				}
			}
		})
	}
}

// Helm 4 words a broken archive that starts like gzip in its own way.
func TestLocalBrokenArchiveByDialect(t *testing.T) {
	p := filepath.Join(t.TempDir(), "magic.tgz")
	if err := os.WriteFile(p, []byte("\x1f\x8b\x08"), 0o644); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[dialect.Dialect]string{dialect.Helm4: "unable to load chart archive", dialect.Helm3: "unexpected EOF"} {
		_, err := chartsource.Local{Limits: loader.LimitsFor(d)}.LoadChart(context.Background(), p)
		if got := errText(err); got != want {
			t.Errorf("%s: error %q, want %q", d, got, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
