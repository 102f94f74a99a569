package yaml_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/forkcheck"
)

// TestSourceIsUpstreams: the copy's files are upstream's but for their marked hunks.
func TestSourceIsUpstreams(t *testing.T) {
	forkcheck.CheckDir(t, forkcheck.Dir(t, "go.yaml.in/yaml/v2"))
}
