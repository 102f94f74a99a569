package porttest

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// LabelsOnlyStore lists from labels alone when asked, as a store of
// Helm-written records does (summaries marked Partial), counts its Gets, and
// fails those of the release named Unreadable as a corrupt record does: a
// store for the tests of the use cases that list.
type LabelsOnlyStore struct {
	ports.ReleaseStore
	Unreadable string
	Gets       atomic.Int64
}

func (s *LabelsOnlyStore) List(ctx context.Context, q ports.ListQuery) (ports.ListResult, error) {
	res, err := s.ReleaseStore.List(ctx, q)
	if q.LabelsOnly {
		for i, r := range res.Releases {
			res.Releases[i] = release.Summary{Name: r.Name, Namespace: r.Namespace, Revision: r.Revision, Status: r.Status, Labels: r.Labels, Partial: true}
		}
	}
	return res, err
}

func (s *LabelsOnlyStore) Get(ctx context.Context, namespace, name string, revision int) (*release.Release, error) {
	s.Gets.Add(1)
	if name == s.Unreadable {
		return nil, ports.RecordError{Object: "test " + name, Namespace: namespace, Release: name, Err: errors.New("corrupt")}
	}
	return s.ReleaseStore.Get(ctx, namespace, name, revision)
}
