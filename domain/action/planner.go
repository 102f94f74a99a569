package action

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/drift"
	"github.com/kubectl-chart/kubectl-chart/domain/engine"
	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Planner computes what an operation will change. It only reads: it renders,
// reads the release history and the live objects (one LIST per kind and
// namespace) and, when asked, lets the API server dry-run each change.
type Planner struct {
	Cluster ports.Cluster
	Clock   ports.Clock
	// ClusterServer is the API server URL plans are bound to.
	ClusterServer string
	// FieldManager is the field manager dry runs apply as, the one the
	// operation will apply as (empty: ports.DefaultFieldManager).
	FieldManager string
	// Helm plans as Helm does where kubectl chart differs (see Lifecycle.Helm):
	// an upgrade whose latest revision is pending is refused in Helm's words.
	Helm bool
}

// PlanOptions tune how deep a plan looks.
type PlanOptions struct {
	// ServerDryRun asks the API server what each change would give (diff, saved
	// plans, --dry-run=server); operations that apply at once skip it, since the
	// apply itself is the server's check.
	ServerDryRun bool
	// Command is the command the plan is for; the operation may differ (an
	// upgrade --install of a new release plans an install).
	Command plan.Operation
	// clientOnly plans without reading the cluster (rollback --dry-run).
	clientOnly bool
	// Preflight, when set, checks that the caller has every permission the
	// operation needs (preflight.go).
	Preflight *Preflight
}

// unservedFor is what planning does with objects of kinds the cluster does not
// serve: a preview shows them, an operation fails before changing anything.
func unservedFor(o PlanOptions) unservedKinds {
	if o.ServerDryRun {
		return unservedKeep
	}
	return unservedFail
}

func (p *Planner) clock() ports.Clock {
	if p.Clock != nil {
		return p.Clock
	}
	return ports.SystemClock{}
}

func (p *Planner) newPlan(op plan.Operation, opts PlanOptions, name, namespace string, h release.History) *plan.Plan {
	cmd := opts.Command
	if cmd == "" {
		cmd = op
	}
	pl := plan.New(op, cmd)
	pl.Cluster = p.ClusterServer
	pl.DryRun = opts.ServerDryRun
	pl.Release = plan.ReleaseRef{Name: name, Namespace: namespace}
	if latest := h.Latest(); latest != nil {
		pl.Release.Base = latest.Version
		if latest.Info != nil {
			pl.Release.BaseStatus = latest.Info.Status
		}
	}
	return pl
}

// capabilities are the cluster's, or Helm's defaults for a client-only dry run.
func (p *Planner) capabilities(ctx context.Context, dry DryRun) (*capabilities.Capabilities, error) {
	if dry == DryRunClient || p.Cluster == nil {
		return capabilities.Default(""), nil
	}
	return p.Cluster.Capabilities(ctx)
}

// lookup reads the live cluster for the lookup template function.
func (p *Planner) lookup(ctx context.Context, dry DryRun) engine.LookupFunc {
	if dry == DryRunClient || p.Cluster == nil {
		return nil
	}
	return ClusterLookup(ctx, p.Cluster)
}

// render renders a release revision, post-rendered as the dialect does.
func (p *Planner) render(ctx context.Context, spec ReleaseSpec, caps *capabilities.Capabilities, revision int, upgrade bool) (*render.Rendered, error) {
	budget := spec.RenderBudget
	if budget.Clock == nil {
		budget.Clock = p.clock()
	}
	return render.Chart(ctx, render.Request{
		Chart: spec.Chart, Values: spec.Values, ReleaseName: spec.ReleaseName, Namespace: spec.Namespace,
		Revision: revision, IsUpgrade: upgrade, Capabilities: caps, SubNotes: spec.SubNotes,
		SkipSchemaValidation: spec.SkipSchemaValidation, Lookup: p.lookup(ctx, spec.DryRun),
		EnableDNS: spec.EnableDNS, Warn: spec.Warn, Dialect: spec.Dialect, Budget: budget,
		PostRender: spec.PostRender,
	})
}

func (p *Planner) newRevision(spec ReleaseSpec, r *render.Rendered, version int, status release.Status, desc string) *release.Release {
	now := release.Time{Time: p.clock().Now()}
	return &release.Release{
		Name: spec.ReleaseName, Namespace: spec.Namespace, Chart: spec.Chart, Config: spec.Values,
		Manifest: r.Manifest, Hooks: r.Hooks, Version: version, Labels: spec.Labels,
		Info: &release.Info{FirstDeployed: now, LastDeployed: now, Status: status, Description: desc, Notes: r.Notes},
	}
}

// setRecord puts the revision to record into the plan, with the digests of
// what it was rendered from.
func setRecord(pl *plan.Plan, rel *release.Release, chartDigest string) error {
	pl.Record = rel
	pl.RecordLabels = rel.Labels
	pl.Release.Revision = rel.Version
	pl.ChartDigest = chartDigest
	vd, err := plan.Digest(rel.Config)
	if err != nil {
		return err
	}
	pl.ValuesDigest = vd
	return nil
}

// chartCRDs parses the chart's crds/ files.
func chartCRDs(ch *chart.Chart) ([]ports.Object, error) {
	var crds []ports.Object
	for _, f := range ch.CRDObjects() {
		objs, err := parseObjects(string(f.File.Data))
		if err != nil {
			return nil, fmt.Errorf("CRD file %s: %w", f.Filename, err)
		}
		for _, o := range objs {
			if o.Group() != "apiextensions.k8s.io" || o.GetKind() != "CustomResourceDefinition" {
				return nil, fmt.Errorf("CRD file %s: %s %q is not a CustomResourceDefinition", f.Filename, o.GetKind(), o.GetName())
			}
			crds = append(crds, o)
		}
	}
	return crds, nil
}

// crdAPIs are what CRDs serve: their group/kind scopes and API versions.
func crdAPIs(crds []ports.Object) (scope map[string]bool, versions capabilities.VersionSet) {
	scope = map[string]bool{}
	for _, crd := range crds {
		spec, _ := crd["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		if kind == "" {
			continue
		}
		scope[group+"/"+kind] = spec["scope"] != "Cluster"
		vs, _ := spec["versions"].([]any)
		for _, raw := range vs {
			v, _ := raw.(map[string]any)
			name, _ := v["name"].(string)
			if name == "" || v["served"] != true {
				continue
			}
			versions = append(versions, group+"/"+name, group+"/"+name+"/"+kind)
		}
	}
	return scope, versions
}

// withAPIVersions is caps serving more API versions, for rendering as the
// cluster will be once a plan's CRDs are installed.
func withAPIVersions(caps *capabilities.Capabilities, extra capabilities.VersionSet) *capabilities.Capabilities {
	if len(extra) == 0 {
		return caps
	}
	c := *caps
	c.APIVersions = slices.Clone(caps.APIVersions)
	for _, v := range extra {
		if !c.APIVersions.Has(v) {
			c.APIVersions = append(c.APIVersions, v)
		}
	}
	return &c
}

func observed(live ports.Object) *plan.Observed {
	rv, uid := observedOf(live)
	return &plan.Observed{ResourceVersion: rv, UID: uid}
}

// unchangedNote marks an object the release leaves alone.
const unchangedNote = "unchanged"

// applySteps says what happens to each object the revision sets: created when
// missing; left alone only when both the revision it replaces (previous) and
// the one applied last (applied: a failed one after it, else the same)
// applied exactly the same object (so no field is to be removed) and the live
// object still holds every field with the same value; adopted when it exists
// but the revision replaced did not have it; otherwise updated. Objects of
// kinds the cluster does not serve are created, said to wait for their CRD
// when crds (group/kind) holds it.
func applySteps(objs, previous, applied []ports.Object, live liveObjects, crds map[string]bool) []plan.Step {
	byKey := func(objs []ports.Object) map[objKey]ports.Object {
		m := make(map[objKey]ports.Object, len(objs))
		for _, o := range objs {
			m[keyOf(o)] = o
		}
		return m
	}
	prev, last := byKey(previous), byKey(applied)
	steps := make([]plan.Step, 0, len(objs))
	for _, o := range objs {
		step := plan.Step{Ref: ports.RefOf(o), Desired: o}
		lv := live.get(o)
		before, had := prev[keyOf(o)]
		switch {
		case !live.served(o):
			step.Action, step.Note = plan.ActionCreate, unservedNote
			if _, ok := crds[o.Group()+"/"+o.GetKind()]; ok {
				step.Note = crdFirstNote
			}
		case lv == nil:
			step.Action = plan.ActionCreate
		case had && reflect.DeepEqual(before, o) && reflect.DeepEqual(last[keyOf(o)], o) && subset(map[string]any(o), map[string]any(lv)):
			step.Action, step.Note = plan.ActionNoOp, unchangedNote
		case !had:
			step.Action = plan.ActionAdopt
		default:
			step.Action = plan.ActionUpdate
		}
		if lv != nil {
			step.Live, step.Observed = lv, observed(lv)
		}
		steps = append(steps, step)
	}
	return steps
}

// helmReplaceNote marks objects replaced as Helm's --force replaces them.
const helmReplaceNote = "replaced whole with an update, as Helm's --force does"

// helmReplace replaces every object that exists, changed or not, with an
// update of the whole object, as Helm's --force does (installed as helm).
func helmReplace(steps []plan.Step) {
	for i, s := range steps {
		if s.Live != nil && s.Desired != nil && s.Action != plan.ActionCreate {
			steps[i].Action, steps[i].Note = plan.ActionReplace, helmReplaceNote
		}
	}
}

// deleteSteps says what happens to objects a release lets go, in the
// uninstall order of the dialect of revision r (the one being uninstalled or
// replaced): deleted, unless kept by their resource policy or gone.
func deleteSteps(r *release.Release, objs []ports.Object, live liveObjects) []plan.Step {
	sorted := inUninstallOrder(r.Dialect(), objs)
	steps := make([]plan.Step, 0, len(sorted))
	for _, o := range sorted {
		step := plan.Step{Ref: ports.RefOf(o), Action: plan.ActionDelete}
		lv := live.get(o)
		switch {
		case keptByPolicy(o):
			step.Action, step.Note = plan.ActionNoOp, keptNote
		case lv == nil:
			step.Action, step.Note = plan.ActionNoOp, alreadyGone
		case r.Dialect().IsHelm4() && !ownedBy(lv, r):
			// Helm 4 deletes only what carries the release's ownership.
			step.Action, step.Note = plan.ActionNoOp, notOwnedNote
		}
		if lv != nil {
			step.Live, step.Observed = lv, observed(lv)
		}
		steps = append(steps, step)
	}
	return steps
}

// unservedNote marks objects of a kind the cluster does not serve.
const unservedNote = "kind not served by the cluster"

// crdFirstNote marks objects of a kind that one of the plan's CRDs serves.
const crdFirstNote = "kind not served yet: its CRD is installed first"

// inUninstallOrder is a copy of objs in the dialect's uninstall order;
// unknown kinds (custom resources) go first, before their CRDs.
func inUninstallOrder(d dialect.Dialect, objs []ports.Object) []ports.Object {
	sorted := append([]ports.Object(nil), objs...)
	rank := map[string]int{}
	for i, k := range manifest.UninstallOrderFor(d) {
		rank[k] = i
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		ri, iok := rank[sorted[i].GetKind()]
		rj, jok := rank[sorted[j].GetKind()]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return !iok
		}
		return sorted[i].GetKind() < sorted[j].GetKind()
	})
	return sorted
}

// alreadyGone marks objects a release lets go that no longer exist.
const alreadyGone = "already gone"

// notOwnedNote marks objects an uninstall leaves because they carry
// another release's ownership, or none.
const notOwnedNote = "not owned by this release"

// ownedBy reports whether a live object carries release r's ownership, as
// Helm 4 checks it before deleting.
func ownedBy(live ports.Object, r *release.Release) bool {
	annotations := live.GetAnnotations()
	return live.GetLabels()[ManagedByLabel] == ManagedByValue &&
		annotations[ReleaseNameAnnotation] == r.Name && annotations[ReleaseNamespaceAnnotation] == r.Namespace
}

// barrierKinds are kinds whose objects must exist before later kinds are
// created: without them the API server refuses or misadmits what follows.
var barrierKinds = map[string]bool{
	"Namespace": true, "CustomResourceDefinition": true, "PriorityClass": true,
	"ResourceQuota": true, "LimitRange": true, "ServiceAccount": true,
}

// lastTier is the tier of kinds applied one kind at a time, as Helm applies all.
const lastTier = 2

// applyTier places a kind: 0 for what workloads use (configuration, RBAC,
// Services: up to Service in Helm's order), 1 for workloads and what refers
// to them (up to Ingress), so that Pods neither start before their
// configuration exists nor load the server while the first tier is written;
// lastTier for what changes how the server admits or serves other objects
// (APIService, webhook configurations) and custom resources, which such
// webhooks may check.
func applyTier(kind string) int {
	switch i := slices.Index(manifest.InstallOrder, kind); {
	case i < 0 || kind == "APIService":
		return lastTier
	case i <= slices.Index(manifest.InstallOrder, "Service"):
		return 0
	default:
		return 1
	}
}

// stagesOf groups steps, in Helm's install order, into stages: within the
// first two tiers, kinds between barriers go together (each kind with its own
// workers, so that a kind the server creates slowly no longer holds up the
// others); barrier kinds and the kinds of the last tier go one kind at a time,
// and CRDs are waited for before what follows.
func stagesOf(steps []plan.Step) []plan.Stage {
	var stages []plan.Stage
	var open *plan.Stage
	openTier := -1
	for start := 0; start < len(steps); {
		end := start + 1
		for end < len(steps) && steps[end].Ref.Kind == steps[start].Ref.Kind {
			end++
		}
		batch := steps[start:end]
		start = end
		kind := batch[0].Ref.Kind
		tier := applyTier(kind)
		if !barrierKinds[kind] && tier < lastTier {
			if open != nil && openTier != tier {
				stages = append(stages, *open)
				open = nil
			}
			if open == nil {
				open, openTier = &plan.Stage{}, tier
			}
			open.Name = joinKind(open.Name, kind)
			open.Steps = append(open.Steps, batch...)
			continue
		}
		if open != nil {
			stages = append(stages, *open)
			open = nil
		}
		stages = append(stages, plan.Stage{Name: kind, Steps: batch, WaitEstablished: kind == "CustomResourceDefinition"})
	}
	if open != nil {
		stages = append(stages, *open)
	}
	return stages
}

func joinKind(name, kind string) string {
	if name == "" {
		return kind
	}
	return name + ", " + kind
}

// hookRuns lists the hooks of events in the order they run.
func hookRuns(rel *release.Release, events ...release.HookEvent) []plan.HookRun {
	var out []plan.HookRun
	for _, ev := range events {
		for _, h := range hooksOf(rel.Hooks, ev) {
			out = append(out, plan.HookRun{Event: ev, Kind: h.Kind, Name: h.Name, Weight: h.Weight})
		}
	}
	return out
}

// dryRunWorkers bounds concurrent dry-run requests.
const dryRunWorkers = 32

// dryRun asks the API server what each change of the plan would give, and
// records what it refuses as problems. An update the server says changes
// nothing becomes a no-op.
func (p *Planner) dryRun(ctx context.Context, pl *plan.Plan, createdNamespace string) {
	for i, s := range pl.CRDs {
		if s.Action == plan.ActionUpdate && s.Note == "" {
			out, err := p.Cluster.Apply(ctx, s.Desired, ports.ApplyOptions{
				FieldManager: p.FieldManager, ForceConflicts: pl.Settings.ForceConflicts, TakeOverFrom: takeOverFrom(p.FieldManager), DryRun: true,
			})
			p.judge(pl, &pl.CRDs[i], out, err)
		}
	}
	type job struct{ stage, step int }
	var jobs []job
	for i, st := range pl.Stages {
		for j, s := range st.Steps {
			switch s.Action {
			case plan.ActionCreate, plan.ActionUpdate, plan.ActionAdopt:
				if s.Note == unservedNote {
					pl.Problems = append(pl.Problems, plan.Problem{Type: plan.ProblemUnserved, Ref: s.Ref,
						Message: fmt.Sprintf("%s: resource mapping not found for kind %q in version %q", s.Ref, s.Ref.Kind, s.Ref.APIVersion)})
				}
				if s.Note != "" {
					continue
				}
				if createdNamespace != "" && s.Ref.Namespace == createdNamespace {
					pl.Stages[i].Steps[j].Note = fmt.Sprintf("namespace %s is created first", createdNamespace)
					continue
				}
				jobs = append(jobs, job{i, j})
			}
		}
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	work := make(chan job)
	for range min(dryRunWorkers, len(jobs)) {
		wg.Go(func() {
			for jb := range work {
				s := &pl.Stages[jb.stage].Steps[jb.step]
				out, err := p.Cluster.Apply(ctx, s.Desired, ports.ApplyOptions{
					FieldManager: p.FieldManager, ForceConflicts: pl.Settings.ForceConflicts, TakeOverFrom: takeOverFrom(p.FieldManager), DryRun: true,
				})
				mu.Lock()
				p.judge(pl, s, out, err)
				mu.Unlock()
			}
		})
	}
	for _, jb := range jobs {
		work <- jb
	}
	close(work)
	wg.Wait()
}

// judge records the server's answer to one dry run.
func (p *Planner) judge(pl *plan.Plan, s *plan.Step, out ports.Object, err error) {
	var conflict *ports.ConflictError
	switch {
	case err == nil:
		s.Result = out
		if s.Action == plan.ActionUpdate && s.Live != nil && reflect.DeepEqual(plan.Normalize(s.Live), plan.Normalize(out)) {
			s.Action, s.Note = plan.ActionNoOp, "the server reports no change"
		}
	case errors.As(err, &conflict):
		pl.Problems = append(pl.Problems, plan.Problem{Type: plan.ProblemConflict, Ref: s.Ref, Message: err.Error()})
	case errors.Is(err, ports.ErrInvalid) && pl.Settings.ForceReplace && s.Live != nil:
		s.Action, s.Note = plan.ActionReplace, "the change needs a new object: "+err.Error()
	case errors.Is(err, ports.ErrInvalid):
		pl.Problems = append(pl.Problems, plan.Problem{Type: plan.ProblemImmutable, Ref: s.Ref, Message: err.Error()})
	case errors.Is(err, ports.ErrUnknownKind):
		s.Note = unservedNote
		pl.Problems = append(pl.Problems, plan.Problem{Type: plan.ProblemUnserved, Ref: s.Ref, Message: err.Error()})
	default:
		pl.Problems = append(pl.Problems, plan.Problem{Type: plan.ProblemRejected, Ref: s.Ref, Message: err.Error()})
	}
}

// subset reports whether every field of want is in have with the same value.
func subset(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, ok := h[k]
			if !ok && drift.Zero(wv) {
				// The server leaves out what is zero (false, 0, "", null):
				// its absence holds that value.
				continue
			}
			if !ok || !subset(wv, hv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], h[i]) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return want == have
	}
	wf, wok := drift.Number(want)
	hf, hok := drift.Number(have)
	return wok && hok && wf == hf
}
