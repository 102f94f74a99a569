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
		return l.Planner().PlanUpgrade(ctx, req, h, PlanOptions{ServerDryRun: true, Command: plan.OpUpgrade,
			Preflight: l.preflightFor(upgradeExecOptions(req))})
	})
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
		return l.Planner().PlanUninstall(ctx, req, h, PlanOptions{ServerDryRun: true, Command: plan.OpUninstall,
			Preflight: l.preflightFor(ExecOptions{WaitSpec: WaitSpec{Wait: req.Wait, Timeout: req.Timeout}})})
	})
}

func (l *Lifecycle) preview(ctx context.Context, name, namespace string, planFn func(release.History) (*plan.Plan, error)) (*plan.Plan, error) {
	if err := releasename.Validate(name); err != nil {
		return nil, fmt.Errorf("release name %q: %w", name, err)
	}
	h, err := l.history(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return planFn(h)
}
