package chartsource_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
)

// tgz builds an archive with the given entries, as a hostile server might.
func tgz(t *testing.T, entries map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, body := range entries {
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
	return b.Bytes()
}

func TestExpandNeverWritesOutsideTarget(t *testing.T) {
	tests := map[string]map[string]string{
		"name with dot-dot":   {"x/Chart.yaml": "apiVersion: v2\nname: ..\nversion: 1.0.0\n"},
		"name with slash":     {"x/Chart.yaml": "apiVersion: v2\nname: ../../evil\nversion: 1.0.0\n"},
		"name dot":            {"x/Chart.yaml": "apiVersion: v2\nname: .\nversion: 1.0.0\n"},
		"entry with dot-dot":  {"x/Chart.yaml": "apiVersion: v2\nname: ok\nversion: 1.0.0\n", "x/../../../evil.txt": "pwned"},
		"templates traversal": {"x/Chart.yaml": "apiVersion: v2\nname: ok\nversion: 1.0.0\n", "x/templates/../../../evil": "pwned"},
	}
	for name, entries := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			target := filepath.Join(root, "a", "b")
			_, err := chartsource.Expand(target, tgz(t, entries))
			if err == nil {
				t.Fatal("want an error")
			}
			t.Log(err)
			// Nothing at all may exist outside target.
			_ = filepath.Walk(root, func(p string, info os.FileInfo, _ error) error {
				if !info.IsDir() && !strings.HasPrefix(p, target+string(filepath.Separator)) {
					t.Errorf("wrote %s outside %s", p, target)
				}
				return nil
			})
		})
	}
}

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	data := tgz(t, map[string]string{
		"demo/Chart.yaml":            "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
		"demo/templates/cm.yaml":     "kind: ConfigMap\n",
		"demo/charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
	})
	got, err := chartsource.Expand(dir, data)
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(dir, "demo") {
		t.Errorf("expanded to %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo", "charts", "sub", "Chart.yaml")); err != nil {
		t.Error(err)
	}
	if _, err := chartsource.Expand(dir, data); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("expanding over an existing chart: err = %v", err)
	}
}
