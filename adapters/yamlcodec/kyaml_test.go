package yamlcodec

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestKYAMLContract(t *testing.T) {
	porttest.YAMLCodec(t, KYAML{})
}
