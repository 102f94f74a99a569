//go:build e2e

package releases

import (
	"testing"

	"k8s.io/client-go/metadata"

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

func TestSecretContractWithMetadataListing(t *testing.T) {
	var ns [2]string
	porttest.ReleaseStore(t, func(st *testing.T) (ports.ReleaseStore, [2]string) {
		return secret.NewWithMetadata(clientset(st), metadataClient(st)), emptyNamespaces(st, t, &ns)
	})
}

func TestConfigMapContractWithMetadataListing(t *testing.T) {
	var ns [2]string
	porttest.ReleaseStore(t, func(st *testing.T) (ports.ReleaseStore, [2]string) {
		return configmap.NewWithMetadata(clientset(st), metadataClient(st)), emptyNamespaces(st, t, &ns)
	})
}

func metadataClient(t *testing.T) metadata.Interface {
	t.Helper()
	c, err := metadata.NewForConfig(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	return c
}
