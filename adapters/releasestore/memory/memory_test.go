package memory_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestContract(t *testing.T) {
	porttest.ReleaseStore(t, func(t *testing.T) (ports.ReleaseStore, [2]string) {
		return memory.New(), [2]string{"default", "prod"}
	})
}
