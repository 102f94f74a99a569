package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// UninstallRequest removes a release.
type UninstallRequest struct {
	ReleaseName string
	Namespace   string
	// KeepHistory keeps the revisions, the latest marked uninstalled.
	KeepHistory    bool
	IgnoreNotFound bool
	NoHooks        bool
	// Cascade is the deletion propagation (background by default).
	Cascade     ports.Propagation
	Wait        bool
	Timeout     time.Duration
	DryRun      bool
	Description string
}

// UninstallResult is what an uninstall did.
type UninstallResult struct {
	Release *release.Release
	// Kept are the objects left in place by the keep resource policy.
	Kept []ports.ObjectRef
	// NotFound is set when the release did not exist and that was allowed.
	NotFound bool
}

// Uninstall deletes a release's objects and its history (or marks it uninstalled).
func (l *Lifecycle) Uninstall(ctx context.Context, req UninstallRequest) (*UninstallResult, error) {
	if err := ValidateReleaseName(req.ReleaseName); err != nil {
		return nil, fmt.Errorf("release name %q: %w", req.ReleaseName, err)
	}
	if !req.DryRun {
		lctx, unlock, err := l.lock(ctx, req.Namespace, req.ReleaseName)
		if err != nil {
			return nil, err
		}
		ctx = lctx
		defer unlock()
	}
	return l.uninstall(ctx, req)
}

func (l *Lifecycle) uninstall(ctx context.Context, req UninstallRequest) (*UninstallResult, error) {
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	if len(h) == 0 {
		if req.IgnoreNotFound {
			return &UninstallResult{NotFound: true}, nil
		}
		return nil, fmt.Errorf("uninstall: Release not loaded: %s: %w", req.ReleaseName, ports.ErrReleaseNotFound)
	}
	rel := h.Latest()
	if req.DryRun {
		return &UninstallResult{Release: rel}, nil
	}
	if err := l.recoverPending(ctx, h); err != nil {
		return nil, err
	}
	if rel.Info.Status == release.StatusUninstalled {
		if req.KeepHistory {
			return nil, fmt.Errorf("the release named %q is already deleted", req.ReleaseName)
		}
		return &UninstallResult{Release: rel}, l.purge(ctx, h)
	}
	if err := rel.Apply(release.EventUninstallStarted, "Deletion in progress (or silently failed)"); err != nil {
		return nil, err
	}
	if err := l.Store.Update(ctx, rel); err != nil {
		return nil, fmt.Errorf("record uninstall of %s: %w", rel.Name, err)
	}
	timeout := WaitSpec{Timeout: req.Timeout}.timeout()
	res := &UninstallResult{Release: rel}
	err = func() error {
		if !req.NoHooks {
			if err := l.runHooks(ctx, rel, release.HookPreDelete, timeout); err != nil {
				return err
			}
		}
		objs, err := l.objectsOf(ctx, rel.Manifest, rel.Namespace, nil, true)
		if err != nil {
			return err
		}
		prop := req.Cascade
		if prop == "" {
			prop = ports.PropagationBackground
		}
		wctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		l.emit(EventPhase, "", fmt.Sprintf("deleting %d object(s)", len(objs)))
		res.Kept, err = l.deleteAll(wctx, objs, prop, req.Wait)
		if err != nil {
			return err
		}
		if !req.NoHooks {
			if err := l.runHooks(ctx, rel, release.HookPostDelete, timeout); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		ferr := l.record(ctx, rel, release.EventFailed, fmt.Sprintf("uninstallation failed: %s", err))
		return res, errors.Join(fmt.Errorf("uninstallation completed with errors: %w", err), ferr)
	}
	rel.Info.Deleted = release.Time{Time: l.now()}
	if req.KeepHistory {
		desc := req.Description
		if desc == "" {
			desc = "Uninstallation complete"
		}
		return res, l.record(ctx, rel, release.EventUninstalled, desc)
	}
	return res, l.purge(ctx, h)
}

// purge deletes every revision of a release.
func (l *Lifecycle) purge(ctx context.Context, h release.History) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for _, r := range h {
		if _, err := l.Store.Delete(ctx, r.Namespace, r.Name, r.Version); err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
			errs = append(errs, fmt.Errorf("delete revision %d of %s: %w", r.Version, r.Name, err))
		}
	}
	return errors.Join(errs...)
}
