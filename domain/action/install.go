package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
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
	Atomic               bool
	NoHooks              bool
	TakeOwnership        bool
	SubNotes             bool
	SkipSchemaValidation bool
	EnableDNS            bool
	ForceConflicts       bool
	DryRun               DryRun
	// PostRender rewrites the manifest before it is applied; nil leaves it.
	PostRender ports.PostRenderer
	Warn       func(format string, args ...any)
}

// InstallRequest installs a release.
type InstallRequest struct {
	ReleaseSpec
	CreateNamespace bool
	SkipCRDs        bool
	// Replace re-uses the name of an uninstalled or failed release.
	Replace bool
}

// ErrNameInUse is an install over a release that exists.
var ErrNameInUse = errors.New("cannot re-use a name that is still in use")

// Install installs a chart as a new release and returns its revision.
func (l *Lifecycle) Install(ctx context.Context, req InstallRequest) (*release.Release, error) {
	if err := ValidateReleaseName(req.ReleaseName); err != nil {
		return nil, fmt.Errorf("release name %q: %w", req.ReleaseName, err)
	}
	if req.DryRun != DryRunNone {
		return l.install(ctx, req, nil)
	}
	if req.CreateNamespace {
		// The lock lives in the namespace.
		if err := l.createNamespace(ctx, req.Namespace); err != nil {
			return nil, err
		}
	}
	ctx, unlock, err := l.lock(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	h, err := l.history(ctx, req.Namespace, req.ReleaseName)
	if err != nil {
		return nil, err
	}
	if err := l.recoverPending(ctx, h); err != nil {
		return nil, err
	}
	return l.install(ctx, req, h)
}

func (l *Lifecycle) capabilities(ctx context.Context, dry DryRun) (*capabilities.Capabilities, error) {
	if dry == DryRunClient || l.Cluster == nil {
		return capabilities.Default(""), nil
	}
	return l.Cluster.Capabilities(ctx)
}

// lookup reads the live cluster for the lookup template function.
func (l *Lifecycle) lookup(ctx context.Context, dry DryRun) engine.LookupFunc {
	if dry == DryRunClient || l.Cluster == nil {
		return nil
	}
	return ClusterLookup(ctx, l.Cluster)
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

// render renders a release revision and applies the post-renderer.
func (l *Lifecycle) render(ctx context.Context, spec ReleaseSpec, revision int, upgrade bool) (*Rendered, error) {
	caps, err := l.capabilities(ctx, spec.DryRun)
	if err != nil {
		return nil, err
	}
	r, err := Render(ctx, RenderRequest{
		Chart: spec.Chart, Values: spec.Values, ReleaseName: spec.ReleaseName, Namespace: spec.Namespace,
		Revision: revision, IsUpgrade: upgrade, Capabilities: caps, SubNotes: spec.SubNotes,
		SkipSchemaValidation: spec.SkipSchemaValidation, Lookup: l.lookup(ctx, spec.DryRun),
		EnableDNS: spec.EnableDNS, Warn: spec.Warn,
	})
	if err != nil {
		return nil, err
	}
	if spec.PostRender != nil {
		m, err := spec.PostRender.PostRender(ctx, r.Manifest)
		if err != nil {
			return nil, fmt.Errorf("error while running post render on files: %w", err)
		}
		r.Manifest = m
	}
	return r, nil
}

func (l *Lifecycle) newRevision(spec ReleaseSpec, r *Rendered, version int, status release.Status, desc string) *release.Release {
	now := release.Time{Time: l.now()}
	return &release.Release{
		Name: spec.ReleaseName, Namespace: spec.Namespace, Chart: spec.Chart, Config: spec.Values,
		Manifest: r.Manifest, Hooks: r.Hooks, Version: version, Labels: spec.Labels,
		Info: &release.Info{FirstDeployed: now, LastDeployed: now, Status: status, Description: desc, Notes: r.Notes},
	}
}

func (l *Lifecycle) install(ctx context.Context, req InstallRequest, h release.History) (*release.Release, error) {
	if latest := h.Latest(); latest != nil {
		st := latest.Info.Status
		if !req.Replace || (st != release.StatusUninstalled && st != release.StatusFailed) {
			return nil, ErrNameInUse
		}
	}
	if !req.SkipCRDs && req.DryRun == DryRunNone {
		if err := l.installCRDs(ctx, req.Chart); err != nil {
			return nil, err
		}
	}
	rendered, err := l.render(ctx, req.ReleaseSpec, h.NextRevision(), false)
	if err != nil {
		return nil, err
	}
	rel := l.newRevision(req.ReleaseSpec, rendered, h.NextRevision(), release.StatusPendingInstall, "Initial install underway")
	if req.DryRun == DryRunClient {
		rel.Info.Description = "Dry run complete"
		return rel, nil
	}
	objs, err := l.objects(ctx, rel.Manifest, rel.Namespace, rel)
	if err != nil {
		return nil, err
	}
	if !req.TakeOwnership {
		if err := l.checkOwnership(ctx, objs, rel); err != nil {
			return nil, fmt.Errorf("unable to continue with install: %w", err)
		}
	}
	if req.DryRun == DryRunServer {
		if err := l.applyAll(ctx, objs, applyOptions{force: req.ForceConflicts, dryRun: true}); err != nil {
			return nil, err
		}
		rel.Info.Description = "Dry run complete"
		return rel, nil
	}
	if req.CreateNamespace {
		if err := l.createNamespace(ctx, rel.Namespace); err != nil {
			return nil, err
		}
	}
	// As Helm: re-using the name of an uninstalled release supersedes its
	// last revision first (a failed one is left as it is).
	if last := h.Latest(); last != nil && last.Info.Status == release.StatusUninstalled {
		if err := l.record(ctx, last, release.EventReplaced, "superseded by new release"); err != nil {
			return nil, err
		}
	}
	if err := l.Store.Create(ctx, rel); err != nil {
		return nil, fmt.Errorf("store revision %d of %s: %w", rel.Version, rel.Name, err)
	}
	l.emit(EventPhase, "", fmt.Sprintf("installing %s revision %d (%d objects)", rel.Name, rel.Version, len(objs)))
	err = l.deploy(ctx, rel, objs, req.ReleaseSpec, release.HookPreInstall, release.HookPostInstall, false)
	if err != nil {
		failErr := l.record(ctx, rel, release.EventFailed, fmt.Sprintf("Release %q failed: %s", rel.Name, err))
		if req.Atomic {
			l.emit(EventPhase, "", "install failed; uninstalling because of --atomic")
			_, uerr := l.uninstall(context.WithoutCancel(ctx), UninstallRequest{
				ReleaseName: rel.Name, Namespace: rel.Namespace, Wait: true, Timeout: req.timeout(),
			})
			if uerr != nil {
				return rel, fmt.Errorf("an error occurred while uninstalling the release. original install error: %w: %w", err, uerr)
			}
			return rel, fmt.Errorf("release %s failed, and has been uninstalled due to atomic being set: %w", rel.Name, err)
		}
		return rel, errors.Join(err, failErr)
	}
	desc := "Install complete"
	if req.Description != "" {
		desc = req.Description
	}
	if err := l.record(ctx, rel, release.EventSucceeded, desc); err != nil {
		return rel, err
	}
	return rel, nil
}

// deploy runs the pre hooks, applies the objects, waits, and runs the post hooks.
func (l *Lifecycle) deploy(ctx context.Context, rel *release.Release, objs []ports.Object, spec ReleaseSpec, pre, post release.HookEvent, replace bool) error {
	if !spec.NoHooks {
		if err := l.runHooks(ctx, rel, pre, spec.timeout()); err != nil {
			return err
		}
	}
	if err := l.applyAll(ctx, objs, applyOptions{force: spec.ForceConflicts, replace: replace}); err != nil {
		return err
	}
	if err := l.waitReady(ctx, objs, spec.WaitSpec); err != nil {
		return err
	}
	if !spec.NoHooks {
		if err := l.runHooks(ctx, rel, post, spec.timeout()); err != nil {
			return err
		}
	}
	return nil
}

func (l *Lifecycle) createNamespace(ctx context.Context, ns string) error {
	o := ports.Object{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns, "labels": map[string]any{"name": ns}},
	}
	if _, err := l.Cluster.Get(ctx, ports.RefOf(o)); err == nil {
		return nil
	}
	if _, err := l.Cluster.Apply(ctx, o, ports.ApplyOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}

// installCRDs creates the chart's crds/ files (never updated, never deleted).
func (l *Lifecycle) installCRDs(ctx context.Context, ch *chart.Chart) error {
	var crds []ports.Object
	for _, f := range ch.CRDObjects() {
		objs, err := parseObjects(string(f.File.Data))
		if err != nil {
			return fmt.Errorf("CRD file %s: %w", f.Filename, err)
		}
		for _, o := range objs {
			if o.Group() != "apiextensions.k8s.io" || o.GetKind() != "CustomResourceDefinition" {
				return fmt.Errorf("CRD file %s: %s %q is not a CustomResourceDefinition", f.Filename, o.GetKind(), o.GetName())
			}
			crds = append(crds, o)
		}
	}
	if len(crds) == 0 {
		return nil
	}
	l.emit(EventPhase, "", fmt.Sprintf("installing %d CRD(s)", len(crds)))
	return l.Cluster.InstallCRDs(ctx, crds)
}
