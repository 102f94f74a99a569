package memcluster_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/memcluster"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestContract(t *testing.T) {
	porttest.Cluster(t, func(t *testing.T) porttest.ClusterFixture {
		c := memcluster.New(memcluster.WithNamespaces("porttest"))
		return porttest.ClusterFixture{Cluster: c, Namespace: "porttest", Others: c,
			Restricted: func(_ *testing.T, allow []ports.Access) ports.Cluster {
				c.Restrict(allow...)
				return c
			}}
	})
}
