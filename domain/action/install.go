package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// DryRun is how far a dry run goes.
type DryRun string

// Dry-run modes: none, render only, or validate with the server.
const (
	DryRunNone   DryRun = ""
	DryRunClient DryRun = "client"
	DryRunServer DryRun = "server"
)

// ReleaseSpec is what install and upgrade deploy, and how.
type ReleaseSpec struct {
	Chart *chart.Chart
	// Values are the user-supplied values (-f, --set ...), already merged.
	Values      map[string]any
	ReleaseName string
	Namespace   string
	Description string
	Labels      map[string]string
	WaitSpec
	// Atomic undoes a failed operation (uninstall, or roll back to the previous revision).
	Atomic bool
	// ServerSide is --server-side; see changeApplyMethod.
	ServerSide           ServerSide
	NoHooks              bool
	TakeOwnership        bool
	SubNotes             bool
	SkipSchemaValidation bool
	EnableDNS            bool
	ForceConflicts       bool
	DryRun               DryRun
	// Dialect is the Helm release whose rendering rules apply (see render.Request).
	Dialect dialect.Dialect
	// RenderBudget bounds the render (see render.Request).
	RenderBudget engine.Budget
	// PostRender rewrites the render before it is applied, as the dialect
	// does; nil leaves it.
	PostRender *render.PostRender
	// HideSecrets (--hide-secret) replaces the Secrets of a dry run's
	// manifest by Helm's comment; without a dry run it is a render.HideSecretError.
	HideSecrets bool
	Warn        func(format string, args ...any)
	// OnPlan, when set, is shown the plan of a server dry run.
	OnPlan func(*plan.Plan)
}

// InstallRequest installs a release.
type InstallRequest struct {
	ReleaseSpec
	CreateNamespace bool
	SkipCRDs        bool
	// CRDs is what happens to the chart's crds/ (--crds); SkipCRDs makes it skip.
	CRDs CRDPolicy
	// Replace re-uses the name of an uninstalled or failed release.
	Replace bool
	// ForceReplace deletes and recreates objects whose change the server refuses.
	ForceReplace bool
}

// Install installs a chart as a new release and returns its revision.
func (l *Lifecycle) Install(ctx context.Context, req InstallRequest) (*release.Release, error) {
	if err := checkHideSecrets(req.ReleaseSpec); err != nil {
		return nil, err
	}
	if err := releasename.Validate(req.ReleaseName); err != nil {
		return nil, releasename.InstallRefusal(req.Dialect, fmt.Errorf("release name %q: %w", req.ReleaseName, err))
	}
	x := ExecOptions{WaitSpec: req.WaitSpec, Atomic: req.Atomic}
	pf := l.preflightFor(x)
	if req.DryRun != DryRunNone {
		// As Helm: a dry run neither checks the name nor reads the history.
		pl, err := l.Planner().PlanInstall(ctx, req, nil, PlanOptions{ServerDryRun: req.DryRun == DryRunServer && !l.Helm, Preflight: pf})
		if err != nil {
			return nil, err
		}
		return dryRunResult(pl, req.ReleaseSpec)
	}
	var rel *release.Release
	err := l.execute(ctx, operation{
		kind: plan.OpInstall, namespace: req.Namespace, name: req.ReleaseName,
		plan: func(ctx context.Context, h release.History) (*plan.Plan, error) {
			return l.Planner().PlanInstall(ctx, req, h, PlanOptions{Preflight: pf})
		},
		prepare: func(ctx context.Context) error {
			if !req.CreateNamespace {
				return nil
			}
			// The lock lives in the namespace.
			return l.createNamespace(ctx, req.Namespace)
		},
		run: func(ctx context.Context, h release.History, pl *plan.Plan) error {
			var err error
			rel, err = l.runInstall(ctx, pl, h, x)
			return err
		},
	}, pf)
	return rel, err
}

// dryRunResult is what a dry run of spec returns: the revision as it would
// be recorded (its Secrets hidden as spec asks), or the problems the server
// found with the plan.
func dryRunResult(pl *plan.Plan, spec ReleaseSpec) (*release.Release, error) {
	if spec.OnPlan != nil && pl.DryRun {
		spec.OnPlan(pl)
	}
	if err := pl.Err(); err != nil {
		return nil, err
	}
	rel := recordOf(pl)
	rel.Info.Description = "Dry run complete"
	return redacted(spec, rel), nil
}

// runInstall executes an install plan; with atomic, a failure uninstalls.
func (l *Lifecycle) runInstall(ctx context.Context, pl *plan.Plan, h release.History, x ExecOptions) (*release.Release, error) {
	rel, err := l.executor().install(ctx, pl, h, x)
	var failed *failedError
	if !errors.As(err, &failed) {
		return rel, err
	}
	if !x.Atomic {
		return rel, err
	}
	l.emit(EventPhase, "", "install failed; uninstalling because of --"+atomicWord(rel.Dialect()))
	// As Helm: without the hooks when the install ran without them.
	_, uerr := l.uninstall(context.WithoutCancel(ctx), UninstallRequest{
		ReleaseName: rel.Name, Namespace: rel.Namespace, Wait: true, Timeout: x.Timeout, NoHooks: pl.Settings.NoHooks,
	})
	if uerr != nil {
		return rel, fmt.Errorf("an error occurred while uninstalling the release. original install error: %w: %w", failed.err, uerr)
	}
	return rel, fmt.Errorf("release %s failed, and has been uninstalled due to %s being set: %w", rel.Name, atomicWord(rel.Dialect()), failed.err)
}

// PlanInstall plans an install over history h (the release's, possibly empty).
func (p *Planner) PlanInstall(ctx context.Context, req InstallRequest, h release.History, opts PlanOptions) (*plan.Plan, error) {
	if latest := h.Latest(); latest != nil {
		st := latest.Info.Status
		if !req.Replace || (st != release.StatusUninstalled && st != release.StatusFailed) {
			return nil, releasename.InstallRefusal(req.Dialect, releasename.ErrInUse)
		}
	}
	method, err := installApplyMethod(req.Dialect, req.ServerSide)
	if err != nil {
		return nil, err
	}
	pl := p.newPlan(plan.OpInstall, opts, req.ReleaseName, req.Namespace, h)
	pl.Settings = plan.Settings{
		ForceConflicts: req.ForceConflicts, ForceReplace: req.ForceReplace, NoHooks: req.NoHooks, TakeOwnership: req.TakeOwnership,
		CreateNamespace: req.CreateNamespace, Replace: req.Replace, Description: req.Description,
	}
	chartDigest, err := plan.Digest(req.Chart)
	if err != nil {
		return nil, err
	}
	var crds []ports.Object
	crdPolicy := crdPolicy(req.SkipCRDs, req.CRDs)
	if crdPolicy != CRDsSkip && req.DryRun != DryRunClient {
		if crds, err = chartCRDs(req.Chart); err != nil {
			return nil, err
		}
	}
	caps, err := p.capabilities(ctx, req.DryRun)
	if err != nil {
		return nil, err
	}
	// Rendered as the cluster will be once the chart's CRDs are installed, as
	// Helm renders after installing them.
	crdScopes, crdVersions := crdAPIs(crds)
	// Both Helms render an install as revision 1, even one that replaces an
	// uninstalled or failed release and is recorded as the next revision.
	rendered, err := p.render(ctx, req.ReleaseSpec, withAPIVersions(caps, crdVersions), 1, false)
	if err != nil {
		return nil, err
	}
	pl.LookedUp = rendered.LookedUp
	rel := p.newRevision(req.ReleaseSpec, rendered, h.NextRevision(), release.StatusPendingInstall, "Initial install underway")
	rel.ApplyMethod = method
	if err := setRecord(pl, rel, chartDigest); err != nil {
		return nil, err
	}
	if req.DryRun == DryRunClient {
		return pl, nil
	}
	src, err := scopes{cluster: p.Cluster, planned: crdScopes}.sourcedObjectsOf(ctx, rel.Manifest, rel.Namespace, rel, unservedFor(opts))
	if err != nil {
		return nil, buildReleaseError(err)
	}
	objs := objectsOfSourced(src)
	// The order (HIP-0025) is checked before anything else reads or writes.
	ord, err := orderOf(rel.Chart, src, forcedOrder(req.WaitSpec))
	if err != nil {
		return nil, orderError(err)
	}
	ord.record(rel)
	if err := p.preflightReads(ctx, opts, plan.OpInstall, pl.Settings, req.Namespace, h, objs, nil, crds, crdPolicy); err != nil {
		return nil, err
	}
	live, err := readLive(ctx, p.Cluster, objs)
	if err != nil {
		return nil, err
	}
	if !req.TakeOwnership {
		if err := checkOwnership(objs, live, rel); err != nil {
			return nil, fmt.Errorf("unable to continue with install: %w", err)
		}
	}
	var problems []plan.Problem
	if pl.CRDs, problems, err = p.crdSteps(ctx, crds, crdPolicy); err != nil {
		return nil, err
	}
	if err := crdProblems(pl, problems, opts); err != nil {
		return nil, err
	}
	pl.Stages = ord.planStages(applySteps(objs, nil, nil, live, crdScopes), pl)
	if !req.NoHooks {
		pl.Hooks = hookRuns(rel, release.HookPreInstall, release.HookPostInstall)
	}
	permitted, err := p.preflight(ctx, pl, h, opts)
	if err != nil {
		return nil, err
	}
	if opts.ServerDryRun && permitted {
		created := ""
		if req.CreateNamespace {
			if _, err := p.Cluster.Get(ctx, ports.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: req.Namespace}); errors.Is(err, ports.ErrObjectNotFound) {
				created = req.Namespace
			}
		}
		p.dryRun(ctx, pl, created)
	}
	return pl, nil
}

// ClusterLookup answers the lookup template function from a live cluster:
// one object, or a list when name is empty; what does not exist is empty.
func ClusterLookup(ctx context.Context, cluster ports.Cluster) engine.LookupFunc {
	return func(apiVersion, kind, namespace, name string) (map[string]any, error) {
		if name != "" {
			u, err := cluster.Get(ctx, ports.ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name})
			if errors.Is(err, ports.ErrObjectNotFound) || errors.Is(err, ports.ErrUnknownKind) {
				return map[string]any{}, nil
			}
			if err != nil {
				return nil, err
			}
			return u, nil
		}
		items, err := cluster.List(ctx, apiVersion, kind, namespace, "")
		if errors.Is(err, ports.ErrUnknownKind) {
			return map[string]any{}, nil
		}
		if err != nil {
			return nil, err
		}
		list := make([]any, len(items))
		for i := range items {
			list[i] = map[string]any(items[i])
		}
		return map[string]any{"apiVersion": "v1", "kind": kind + "List", "items": list}, nil
	}
}
