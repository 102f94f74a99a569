package action

import (
	"context"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
)

// Previews: the plan of an operation, with the server's dry run of every
// change, computed without the lock and without changing anything (diff,
// --save-plan).

// PreviewInstall previews an install.
func (l *Lifecycle) PreviewInstall(ctx context.Context, req InstallRequest) (*plan.Plan, error) {
	return l.preview(ctx, req.ReleaseName, req.Namespace, func(h release.History) (*plan.Plan, error) {
		return l.Planner().PlanInstall(ctx, req, h, PlanOptions{ServerDryRun: true, Command: plan.OpInstall,
			Preflight: l.preflightFor(ExecOptions{WaitSpec: req.WaitSpec, Atomic: req.Atomic})})
	})
}

// PreviewUpgrade previews an upgrade (an install with Install set and no release).
func (l *Lifecycle) PreviewUpgrade(ctx context.Context, req UpgradeRequest) (*plan.Plan, error) {
	return l.preview(ctx, req.ReleaseName, req.Namespace, func(h release.History) (*plan.Plan, error) {
		return l.PreviewUpgradeFrom(ctx, req, h)
	})
}

// PreviewUpgradeFrom previews an upgrade from h, the release's history as
// the caller already read it (a stack plan reads it to choose the dialect).
func (l *Lifecycle) PreviewUpgradeFrom(ctx context.Context, req UpgradeRequest, h release.History) (*plan.Plan, error) {
	if err := validName(req.ReleaseName); err != nil {
		return nil, err
	}
	return l.Planner().PlanUpgrade(ctx, req, h, PlanOptions{ServerDryRun: true, Command: plan.OpUpgrade,
		Preflight: l.preflightFor(upgradeExecOptions(req))})
}

// PreviewRollback previews a rollback.
func (l *Lifecycle) PreviewRollback(ctx context.Context, req RollbackRequest) (*plan.Plan, error) {
	return l.preview(ctx, req.ReleaseName, req.Namespace, func(h release.History) (*plan.Plan, error) {
		return l.Planner().PlanRollback(ctx, req, h, PlanOptions{ServerDryRun: true, Command: plan.OpRollback,
			Preflight: l.preflightFor(rollbackExecOptions(req))})
	})
}

// PreviewUninstall previews an uninstall.
func (l *Lifecycle) PreviewUninstall(ctx context.Context, req UninstallRequest) (*plan.Plan, error) {
	return l.preview(ctx, req.ReleaseName, req.Namespace, func(h release.History) (*plan.Plan, error) {
		return l.PreviewUninstallFrom(ctx, req, h)
	})
}

// PreviewUninstallFrom previews an uninstall from h, the release's history
// as the caller already read it.
func (l *Lifecycle) PreviewUninstallFrom(ctx context.Context, req UninstallRequest, h release.History) (*plan.Plan, error) {
	if err := validName(req.ReleaseName); err != nil {
		return nil, err
	}
	return l.Planner().PlanUninstall(ctx, req, h, PlanOptions{ServerDryRun: true, Command: plan.OpUninstall,
		Preflight: l.preflightFor(ExecOptions{WaitSpec: WaitSpec{Wait: req.Wait, Timeout: req.Timeout}})})
}

func (l *Lifecycle) preview(ctx context.Context, name, namespace string, planFn func(release.History) (*plan.Plan, error)) (*plan.Plan, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	h, err := l.history(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return planFn(h)
}

// validName refuses a release name before anything is read for it.
func validName(name string) error {
	if err := releasename.Validate(name); err != nil {
		return fmt.Errorf("release name %q: %w", name, err)
	}
	return nil
}
