package stackrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ReleaseStatus is one row of `stack status` and `stack drift`.
type ReleaseStatus struct {
	ID stack.ID
	// Revision and Status are the latest revision's; 0 and "" when the
	// release does not exist.
	Revision int
	Status   release.Status
	// Drift is what changed behind the release's back (nil: not checked,
	// the release has no deployed revision).
	Drift *action.ReleaseDrift
	// Corrected is set when `stack drift --correct` put the drift back.
	Corrected bool
	// Err is why the release could not be read.
	Err error
}

// Drifted reports whether anything of the release changed behind its back.
func (s ReleaseStatus) Drifted() bool { return s.Drift != nil && s.Drift.Drifted() }

// Inspector reads a stack's releases and their drift.
type Inspector struct {
	Targets Targets
	// Concurrency bounds the releases read at once; 0 is unlimited.
	Concurrency int
}

// Status reads each release of s: its latest revision and its drift. A
// release that cannot be read is reported with its error; the others still
// are.
func (in *Inspector) Status(ctx context.Context, s stack.Stack) []ReleaseStatus {
	out := make([]ReleaseStatus, len(s.Releases))
	forEach(ctx, len(s.Releases), in.Concurrency, func(ctx context.Context, i int) {
		out[i] = in.status(ctx, s.Releases[i].ID)
	})
	return out
}

func (in *Inspector) status(ctx context.Context, id stack.ID) ReleaseStatus {
	st := ReleaseStatus{ID: id}
	lc, err := in.Targets.Lifecycle(ctx, id.KubeContext)
	if err != nil {
		st.Err = err
		return st
	}
	h, err := lc.Store.History(ctx, id.Namespace, id.Name)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return st
	}
	if err != nil {
		st.Err = fmt.Errorf("read history: %w", err)
		return st
	}
	if latest := release.History(h).Latest(); latest != nil && latest.Info != nil {
		st.Revision, st.Status = latest.Version, latest.Info.Status
	}
	if release.History(h).LastDeployed() == nil {
		return st
	}
	drifts, err := lc.Drift(ctx, action.DriftRequest{Namespace: id.Namespace, Name: id.Name})
	switch {
	case err != nil:
		st.Err = err
	case len(drifts) == 1 && drifts[0].Err != nil:
		st.Err = drifts[0].Err
	case len(drifts) == 1:
		st.Drift = &drifts[0]
	}
	return st
}

// Correct puts back what drifted in each release of s (`stack drift
// --correct`), each under its release's lock; a release that cannot be
// corrected is reported with its error and the others still are.
func (in *Inspector) Correct(ctx context.Context, s stack.Stack) []ReleaseStatus {
	out := in.Status(ctx, s)
	forEach(ctx, len(out), in.Concurrency, func(ctx context.Context, i int) {
		st := &out[i]
		if st.Err != nil || !st.Drifted() {
			return
		}
		lc, err := in.Targets.Lifecycle(ctx, st.ID.KubeContext)
		if err == nil {
			_, err = lc.CorrectDrift(ctx, st.ID.Namespace, st.ID.Name)
		}
		if err != nil {
			st.Err = fmt.Errorf("correct drift: %w", err)
			return
		}
		st.Corrected = true
	})
	return out
}
