package releases

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/configmap"
	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestSecretContract(t *testing.T) {
	var ns [2]string
	porttest.ReleaseStore(t, func(st *testing.T) (ports.ReleaseStore, [2]string) {
		return secret.New(clientset(st)), emptyNamespaces(st, t, &ns)
	})
}

func TestConfigMapContract(t *testing.T) {
	var ns [2]string
	porttest.ReleaseStore(t, func(st *testing.T) (ports.ReleaseStore, [2]string) {
		return configmap.New(clientset(st)), emptyNamespaces(st, t, &ns)
	})
}
