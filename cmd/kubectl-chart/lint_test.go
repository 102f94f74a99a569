package main

import (
	"strings"
	"testing"
)

// --with-subcharts lints, as Helm does, every chart directory and archive at
// any depth under charts/ (Helm v3.22 gives the same summary for this tree);
// the output ends with the summary alone.
func TestLintWithSubcharts(t *testing.T) {
	dir := t.TempDir()
	chart := func(name string) string {
		return "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\nicon: https://example.com/i.png\n"
	}
	writeFiles(t, dir, map[string]string{
		"Chart.yaml":                    chart("top"),
		"values.yaml":                   "",
		"charts/a/Chart.yaml":           chart("a"),
		"charts/a/values.yaml":          "",
		"charts/a/charts/b/Chart.yaml":  chart("b"),
		"charts/a/charts/b/values.yaml": "",
		"charts/broken.tgz":             "not gzip",
	})
	out, _, err := runRoot(t, "lint", dir, "--with-subcharts")
	if err == nil || err.Error() != "4 chart(s) linted, 3 chart(s) failed" {
		t.Fatalf("error = %v\n%s", err, out)
	}
	for _, want := range []string{"==> Linting " + dir + "/charts/a\n", "==> Linting " + dir + "/charts/a/charts/b\n", "==> Linting " + dir + "/charts/broken.tgz\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Error:") {
		t.Errorf("per-chart error lines, which Helm does not print:\n%s", out)
	}
}
