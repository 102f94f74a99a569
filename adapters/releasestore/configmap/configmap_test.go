package configmap_test

import (
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/configmap"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestContract(t *testing.T) {
	porttest.ReleaseStore(t, func(t *testing.T) (ports.ReleaseStore, [2]string) {
		return configmap.New(fake.NewClientset()), [2]string{"default", "prod"}
	})
}
