package yaml_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/forkcheck"
)

func TestSameAsUpstream(t *testing.T) {
	forkcheck.CheckDir(t, forkcheck.Dir(t, "go.yaml.in/yaml/v2"))
}
