//go:build go1.26 && !go1.27

package tmplparse

import (
	"path/filepath"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/forkcheck"
)

// TestSourceIsUpstreams: lex.go and parse.go are the Go release's but for their
// marked hunks; a Go 1.26.x whose text/template/parse differs fails here, and the
// copy is to be brought up to it.
func TestSourceIsUpstreams(t *testing.T) {
	upstream := forkcheck.Dir(t, "text/template/parse")
	forkcheck.CheckDir(t, upstream, "doc.go", "fallback.go", "nodes.go", "tree.go", "LICENSE")
	forkcheck.CheckFile(t, "LICENSE", filepath.Join(upstream, "..", "..", "..", "..", "LICENSE"))
}
