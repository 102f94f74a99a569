package prereq

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a TB that records how the test would have ended.
type recorder struct{ skipped, failed string }

func (*recorder) Helper()             {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

func TestMissing(t *testing.T) {
	tests := map[string]struct {
		ci                    string
		wantSkipped, wantFail bool
	}{
		"outside CI it skips": {ci: "", wantSkipped: true},
		"CI=false skips":      {ci: "false", wantSkipped: true},
		"in CI it fails":      {ci: "true", wantFail: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			var r recorder
			Missing(&r, "no %s", "peer")
			if (r.skipped != "") != tc.wantSkipped || (r.failed != "") != tc.wantFail {
				t.Fatalf("skipped %q, failed %q", r.skipped, r.failed)
			}
			if got := r.skipped + r.failed; got[:7] != "no peer" {
				t.Errorf("reason = %q, want it to start with the caller's", got)
			}
		})
	}
}

func TestFinds(t *testing.T) {
	cache, corpus := t.TempDir(), t.TempDir()
	for _, p := range []string{
		filepath.Join(cache, "kubectl-chart", "helm", "v4.3.1", "helm"),
		filepath.Join(cache, "kubectl-chart", "kubectl", "v1.36.3", "kubectl"),
		filepath.Join(corpus, "corpus", "x"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("CONFORMANCE", corpus)
	t.Setenv("CI", "true")
	tests := map[string]struct {
		find func(TB) string
		want string
	}{
		"helm peer":    {find: func(tb TB) string { return HelmPeer(tb, "v4.3.1") }, want: filepath.Join(cache, "kubectl-chart", "helm", "v4.3.1", "helm")},
		"other peer":   {find: func(tb TB) string { return HelmPeer(tb, "v3.22.0") }},
		"tool":         {find: func(tb TB) string { return Tool(tb, "kubectl", "v1.36.3") }, want: filepath.Join(cache, "kubectl-chart", "kubectl", "v1.36.3", "kubectl")},
		"corpus":       {find: Corpus, want: corpus},
		"command":      {find: func(tb TB) string { return Command(tb, "go") }, want: "go"},
		"no such tool": {find: func(tb TB) string { return Command(tb, "no-such-command-here") }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var r recorder
			got := tc.find(&r)
			switch {
			case tc.want == "" && (got != "" || r.failed == ""):
				t.Errorf("found %q (failed %q), want a failure", got, r.failed)
			case tc.want == "go" && (got == "" || filepath.Base(got) != "go"):
				t.Errorf("found %q (failed %q), want go", got, r.failed)
			case tc.want != "" && tc.want != "go" && got != tc.want:
				t.Errorf("found %q (failed %q), want %q", got, r.failed, tc.want)
			}
		})
	}
	t.Run("no corpus", func(t *testing.T) {
		t.Setenv("CONFORMANCE", t.TempDir())
		var r recorder
		if got := Corpus(&r); got != "" || r.failed == "" {
			t.Errorf("found %q (failed %q) in an empty directory", got, r.failed)
		}
	})
}
