package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ErrPlanMismatch is a saved plan used for another release, command or cluster.
var ErrPlanMismatch = errors.New("the plan does not fit")

// ErrPlanStale is a saved plan whose release or objects changed since it was made.
var ErrPlanStale = errors.New("the plan is out of date")

// StaleError lists what changed since a plan was made; nothing was changed.
type StaleError struct {
	Changes []string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("the plan is out of date, nothing was changed; make it again: %s", strings.Join(e.Changes, "; "))
}

// Is makes errors.Is(err, ErrPlanStale) true.
func (e *StaleError) Is(target error) bool { return target == ErrPlanStale }

// SavedPlanRequest executes a saved plan.
type SavedPlanRequest struct {
	Plan *plan.Plan
	// Command, ReleaseName and Namespace are what the user ran; they must be
	// what the plan was made for.
	Command     plan.Operation
	ReleaseName string
	Namespace   string
	ExecOptions
	// Test runs: where to write the test pods' logs (nil: none).
	LogOutput io.Writer
}

// Outcome is what executing a plan did.
type Outcome struct {
	// Operation is what the plan did (an upgrade plan may install).
	Operation plan.Operation
	Release   *release.Release
	Uninstall *UninstallResult
}

// ExecuteSaved carries out a saved plan exactly, without rendering again. It
// refuses, changing nothing, a plan made for another cluster, release or
// command, and one whose release or objects changed since it was made.
func (l *Lifecycle) ExecuteSaved(ctx context.Context, req SavedPlanRequest) (*Outcome, error) {
	pl := req.Plan
	if err := fits(pl, req, l.ClusterServer); err != nil {
		return nil, err
	}
	if pf := l.preflightFor(req.ExecOptions); pf != nil && pl.Operation != plan.OpTest {
		h, err := l.history(ctx, pl.Release.Namespace, pl.Release.Name)
		if err != nil {
			if err := l.storeAccessDenied(ctx, pl.Operation, pl.Release.Namespace, pf); err != nil {
				return nil, err
			}
		} else if err := l.Planner().Preflight(ctx, pl, h, pf); err != nil {
			return nil, err
		}
	}
	if pl.Operation == plan.OpInstall && pl.Settings.CreateNamespace {
		// The lock lives in the namespace.
		if err := l.createNamespace(ctx, pl.Release.Namespace); err != nil {
			return nil, err
		}
	}
	out := &Outcome{Operation: pl.Operation}
	err := l.unitOfWork(ctx, pl.Release.Namespace, pl.Release.Name, func(ctx context.Context, h release.History) error {
		if err := l.Planner().Verify(ctx, pl, h); err != nil {
			return err
		}
		var err error
		switch pl.Operation {
		case plan.OpUninstall:
			out.Uninstall, err = l.executor().uninstall(ctx, pl, h, req.WaitSpec)
		case plan.OpTest:
			out.Release = pl.Record
			err = l.executor().test(ctx, pl, req.Timeout, pl.Record.Dialect())
		default:
			out.Release, err = l.runPlan(ctx, pl, h, req.ExecOptions, nil)
		}
		return err
	})
	return out, err
}

func fits(pl *plan.Plan, req SavedPlanRequest, server string) error {
	switch {
	case pl.Cluster != server:
		return fmt.Errorf("%w: it was made for the cluster at %s, not %s", ErrPlanMismatch, pl.Cluster, server)
	case pl.Release.Name != req.ReleaseName || pl.Release.Namespace != req.Namespace:
		return fmt.Errorf("%w: it is for release %s in namespace %s, not %s in %s", ErrPlanMismatch,
			pl.Release.Name, pl.Release.Namespace, req.ReleaseName, req.Namespace)
	case pl.Command != req.Command:
		return fmt.Errorf("%w: it was made by %q, not %q", ErrPlanMismatch, pl.Command, req.Command)
	}
	return nil
}

// Verify checks that nothing a plan was computed from changed: the release's
// latest revision, and each object it touches (one LIST per kind and namespace).
func (p *Planner) Verify(ctx context.Context, pl *plan.Plan, h release.History) error {
	var changes []string
	base := 0
	if latest := h.Latest(); latest != nil {
		base = latest.Version
	}
	if base != pl.Release.Base {
		changes = append(changes, fmt.Sprintf("release %s: the latest revision is now %d, the plan was made at revision %d", pl.Release.Name, base, pl.Release.Base))
	}
	steps := pl.Steps()
	objs := make([]ports.Object, len(steps))
	for i, s := range steps {
		objs[i] = refObject(s.Ref)
	}
	live, err := readLive(ctx, p.Cluster, objs)
	if err != nil {
		return err
	}
	for i, s := range steps {
		now := live.get(objs[i])
		switch {
		case s.Observed == nil && now != nil:
			changes = append(changes, fmt.Sprintf("%s was created since the plan was made", s.Ref))
		case s.Observed != nil && now == nil:
			changes = append(changes, fmt.Sprintf("%s was deleted since the plan was made", s.Ref))
		case s.Observed != nil:
			rv, uid := observedOf(now)
			if uid != s.Observed.UID {
				changes = append(changes, fmt.Sprintf("%s was replaced since the plan was made", s.Ref))
			} else if rv != s.Observed.ResourceVersion {
				changes = append(changes, fmt.Sprintf("%s changed since the plan was made (resourceVersion %s, now %s)", s.Ref, s.Observed.ResourceVersion, rv))
			}
		}
	}
	if len(changes) > 0 {
		return &StaleError{Changes: changes}
	}
	return nil
}

// refObject is an object that only names itself, for listing.
func refObject(r ports.ObjectRef) ports.Object {
	meta := map[string]any{"name": r.Name}
	if r.Namespace != "" {
		meta["namespace"] = r.Namespace
	}
	return ports.Object{"apiVersion": r.APIVersion, "kind": r.Kind, "metadata": meta}
}
