package loader_test

import (
	"archive/tar"
	"bytes"
	"path"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chart/loader"
)

// FuzzLoadArchive feeds arbitrary bytes to the archive loader: it must never
// panic, never hand out a path that leaves the chart, and every chart it loads
// (subcharts included) must carry valid metadata.
func FuzzLoadArchive(f *testing.F) {
	seeds := [][]byte{
		smallChart(f, "seed", "0.1.0"),
		tgz(f,
			entry{Name: "parent/Chart.yaml", Body: "apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n  - name: child\n    version: 0.1.0\n"},
			entry{Name: "parent/values.yaml", Body: "a: 1\nchild:\n  b: 2\n"},
			entry{Name: "parent/templates/cm.yaml", Body: "kind: ConfigMap\n"},
			entry{Name: "parent/charts/child/Chart.yaml", Body: "apiVersion: v1\nname: child\nversion: 0.1.0\n"},
			entry{Name: "parent/charts/leaf-1.0.0.tgz", Body: string(smallChart(f, "leaf", "1.0.0"))},
		),
		tgz(f, entry{Name: "x/Chart.yaml", Body: okChartYAML}, entry{Name: "../../evil", Body: "x"}),
		tgz(f, entry{Name: "x/Chart.yaml", Body: okChartYAML}, entry{Name: "x/link", Type: tar.TypeSymlink, Linkname: "/etc/passwd"}),
		tgz(f, entry{Name: "x/Chart.yaml", Body: "apiVersion: v2\nname: ../x\nversion: 1.0.0\n"}),
		tgz(f, entry{Name: "x/Chart.yaml", Body: "apiVersion: v2\nname: .\nversion: 1.0.0\n"}),
		tgz(f, entry{Name: `x\Chart.yaml`, Body: okChartYAML}, entry{Name: `\.\c:\\foo`, Body: "x"}),
		tgz(f, entry{Name: "x/Chart.yaml", Body: okChartYAML}, entry{Name: "x/zeros", Body: strings.Repeat("\x00", 4096)}),
		[]byte("not an archive"),
		{0x1f, 0x8b, 0x08},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	limits := loader.Limits{MaxChartSize: 1 << 20, MaxFileSize: 256 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		if files, err := loader.ArchiveFiles(bytes.NewReader(data), limits); err == nil {
			for _, file := range files {
				n := file.Name
				if n == "" || path.IsAbs(n) || strings.HasPrefix(n, "..") || path.Clean(n) != n {
					t.Fatalf("ArchiveFiles returned unsafe name %q", n)
				}
			}
		}
		c, err := loader.LoadArchive(bytes.NewReader(data), limits)
		if err != nil {
			return
		}
		checkLoaded(t, c)
	})
}

func checkLoaded(t *testing.T, c *chart.Chart) {
	t.Helper()
	if c == nil || c.Metadata == nil {
		t.Fatal("loaded a chart without metadata")
	}
	name := c.Name()
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		t.Fatalf("loaded a chart with invalid name %q", name)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("loaded chart %q fails validation: %v", name, err)
	}
	for _, sub := range c.Dependencies() {
		if sub.Parent() != c {
			t.Fatalf("subchart %q of %q has the wrong parent", sub.Name(), name)
		}
		checkLoaded(t, sub)
	}
}
