package helmrecord

import "github.com/kubectl-chart/kubectl-chart/ports"

var _ ports.ClusterBacked = (*Store)(nil)

// resourceNamer is Objects kept as objects of the cluster: it names their
// resource (Secrets, ConfigMaps).
type resourceNamer interface {
	Resource() (group, resource string)
}

// BackingResource names the resource the records are objects of, for the
// preflight of operations: ok is false for Objects that are not the cluster's.
func (s *Store) BackingResource() (group, resource string, ok bool) {
	if n, is := s.objs.(resourceNamer); is {
		group, resource = n.Resource()
		return group, resource, true
	}
	return "", "", false
}
