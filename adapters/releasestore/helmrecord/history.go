package helmrecord

import (
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ReadableHistory is the history of a release's n stored revisions, read by
// read (nil, nil for one to leave out), oldest first. Like Helm, it skips
// revisions it cannot read; when none is readable it returns the first error.
func ReadableHistory(namespace, name string, n int, read func(i int) (*release.Release, error)) (release.History, error) {
	var h release.History
	var firstErr error
	for i := range n {
		r, err := read(i)
		switch {
		case err != nil && firstErr == nil:
			firstErr = err
		case err == nil && r != nil:
			h = append(h, r)
		}
	}
	if len(h) == 0 {
		if firstErr != nil {
			return nil, fmt.Errorf("history of release %s/%s: %w", namespace, name, firstErr)
		}
		return nil, fmt.Errorf("history of release %s/%s: %w", namespace, name, ports.ErrReleaseNotFound)
	}
	return h.Sorted(), nil
}
