package chartsource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/chartsource"
)

// A file that is not a chart archive is refused in Helm v3.22's words: the
// absolute path, and the content type of a zero-padded 512-byte sniff, or
// gzip's own error for what starts like gzip.
func TestLocalNotAnArchive(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]struct {
		name, data, want string
	}{
		"short text":     {"short.tgz", "not gzip", "file '%s' does not appear to be a gzipped archive; got 'application/octet-stream'"},
		"empty":          {"empty.tgz", "", "file '%s' does not appear to be a gzipped archive; got 'application/octet-stream'"},
		"yaml":           {"values.yaml", "a: 1\n", "file '%s' seems to be a YAML file, but expected a gzipped archive"},
		"truncated gzip": {"magic.tgz", "\x1f\x8b\x08", "unexpected EOF"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(mustGetwd(t), p)
			if err != nil {
				rel = p
			}
			_, err = chartsource.NewLocal().LoadChart(context.Background(), rel)
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, p)
			}
			if err == nil || err.Error() != want {
				t.Errorf("error = %v, want %q", err, want)
			}
		})
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
