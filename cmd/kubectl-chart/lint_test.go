package main

import (
	"path/filepath"
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

// lint says what Helm v4.3.1 and v3.22.0 say (stdout and error of
// `helm lint ARGS` in the same directory tree).
func TestLintLikeHelm(t *testing.T) {
	dir := t.TempDir()
	chart := func(name string) string {
		return "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\nicon: https://x/i.png\n"
	}
	writeFiles(t, dir, map[string]string{
		"ok/Chart.yaml":             chart("ok"),
		"ok/values.yaml":            "",
		"ok/templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"hpa/Chart.yaml":            chart("hpa"),
		"hpa/values.yaml":           "",
		"hpa/templates/h.yaml":      "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: x\n",
		"lease/Chart.yaml":          chart("lease"),
		"lease/values.yaml":         "",
		"lease/templates/l.yaml":    "apiVersion: coordination.k8s.io/v1beta1\nkind: Lease\nmetadata:\n  name: x\n",
		"nochart/values.yaml":       "x: 1\n",
		"badload/Chart.yaml":        "apiVersion: v2\nname: [\n",
		"notpl/Chart.yaml":          chart("notpl"),
		"corrupt.tgz":               "garbage",
		"yamldir/Chart.yaml/x":      "x\n",
		"yamldir/values.yaml":       "a: 1\n",
		"yamldir/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
	})
	// Both Helms say the same of a Chart.yaml that is a directory, quoting the
	// error reading it by the chart's absolute path.
	yamlDir := "==> Linting yamldir\n[ERROR] Chart.yaml: should be a file, not a directory\n[ERROR] Chart.yaml: unable to parse YAML\n\tread " +
		filepath.Join(dir, "yamldir", "Chart.yaml") + ": is a directory\n[ERROR] templates/: Chart.yaml file is missing\n[ERROR] : unable to load chart\n\tChart.yaml file is missing\n\n"
	const yamlErr = "error converting YAML to JSON: yaml: line 2: did not find expected node content"
	tests := map[string]struct {
		args    []string
		out     string
		wantErr string
	}{
		"no deprecation Helm does not know": {args: []string{"hpa", "--kube-version", "1.22.0"}, out: "==> Linting hpa\n\n1 chart(s) linted, 0 chart(s) failed\n"},
		"a deprecation at Helm's version":   {args: []string{"lease", "--kube-version", "1.19.0"}, out: "==> Linting lease\n[WARNING] templates/l.yaml: coordination.k8s.io/v1beta1 Lease is deprecated in v1.19+, unavailable in v1.22+; use coordination.k8s.io/v1 Lease\n\n1 chart(s) linted, 0 chart(s) failed\n"},
		"before it":                         {args: []string{"lease", "--kube-version", "1.18.0"}, out: "==> Linting lease\n\n1 chart(s) linted, 0 chart(s) failed\n"},
		"quiet and passing":                 {args: []string{"--quiet", "ok"}},
		"quiet with a warning":              {args: []string{"--quiet", "notpl"}, out: "==> Linting notpl\n[WARNING] templates/: directory does not exist\n\n1 chart(s) linted, 0 chart(s) failed\n"},
		"no Chart.yaml":                     {args: []string{"nochart", "missing"}, out: "==> Linting nochart\nError unable to check Chart.yaml file in chart: stat nochart/Chart.yaml: no such file or directory\n\n==> Linting missing\nError unable to check Chart.yaml file in chart: stat missing/Chart.yaml: no such file or directory\n\n", wantErr: "2 chart(s) linted, 2 chart(s) failed"},
		"helm4: fails to load":              {args: []string{"badload"}, out: "==> Linting badload\n[ERROR] Chart.yaml: unable to parse YAML\n\t" + yamlErr + "\n[INFO] values.yaml: file does not exist\n[WARNING] templates/: directory does not exist\n[ERROR] : unable to load chart\n\tcannot load Chart.yaml: " + yamlErr + "\n\n", wantErr: "1 chart(s) linted, 1 chart(s) failed"},
		"helm3: fails to load":              {args: []string{"badload", "--compat", "helm3"}, out: "==> Linting badload\n[ERROR] Chart.yaml: unable to parse YAML\n\t" + yamlErr + "\n[INFO] values.yaml: file does not exist\n[ERROR] templates/: cannot load Chart.yaml: " + yamlErr + "\n[ERROR] : unable to load chart\n\tcannot load Chart.yaml: " + yamlErr + "\n\n", wantErr: "1 chart(s) linted, 1 chart(s) failed"},
		"helm4: no templates/":              {args: []string{"notpl"}, out: "==> Linting notpl\n[INFO] values.yaml: file does not exist\n[WARNING] templates/: directory does not exist\n\n1 chart(s) linted, 0 chart(s) failed\n"},
		"helm3: no templates/":              {args: []string{"notpl", "--compat", "helm3"}, out: "==> Linting notpl\n[INFO] values.yaml: file does not exist\n\n1 chart(s) linted, 0 chart(s) failed\n"},
		"an archive that does not extract":  {args: []string{"corrupt.tgz"}, out: "==> Linting corrupt.tgz\nError unable to extract tarball: unexpected EOF\n\n", wantErr: "1 chart(s) linted, 1 chart(s) failed"},
		"helm4: Chart.yaml a directory":     {args: []string{"yamldir"}, out: yamlDir, wantErr: "1 chart(s) linted, 1 chart(s) failed"},
		"helm3: Chart.yaml a directory":     {args: []string{"yamldir", "--compat", "helm3"}, out: yamlDir, wantErr: "1 chart(s) linted, 1 chart(s) failed"},
		"helm4: no path":                    {wantErr: `"kubectl chart lint" requires at least 1 argument` + "\n\nUsage:  kubectl chart lint PATH [flags]"},
		"helm3: the current directory":      {args: []string{"--compat", "helm3"}, out: "==> Linting .\nError unable to check Chart.yaml file in chart: stat Chart.yaml: no such file or directory\n\n", wantErr: "1 chart(s) linted, 1 chart(s) failed"},
	}
	t.Chdir(dir)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := runRoot(t, append([]string{"lint"}, tc.args...)...)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			if out != tc.out {
				t.Errorf("stdout:\n%q\nwant:\n%q", out, tc.out)
			}
		})
	}
}
