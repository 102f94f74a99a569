package action

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/drift"
	"github.com/kubectl-chart/kubectl-chart/domain/internal/parallel"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// DriftRequest selects the releases whose drift to find.
type DriftRequest struct {
	// Namespace to look in; "" looks in every namespace.
	Namespace string
	// Name limits the check to one release of Namespace.
	Name string
	// Selector is a label selector on the releases' storage labels.
	Selector string
}

// ReleaseDrift is what changed behind one release's back: a plan that would
// put its objects back, whose steps say per object what changed (missing
// objects are created, changed ones updated taking their fields back).
type ReleaseDrift struct {
	Name      string
	Namespace string
	// Revision is the deployed revision compared with the cluster.
	Revision int
	Plan     *plan.Plan
	// Err is why the release could not be checked.
	Err error
}

// Drifted reports whether anything of the release changed.
func (r ReleaseDrift) Drifted() bool { return r.Plan != nil && r.Plan.HasChanges() }

// Notes of drift steps.
const (
	driftMissing   = "missing: deleted out of band"
	driftChanged   = "changed"
	driftOwnership = "changed: its ownership metadata was removed"
)

// Drift finds what changed in the cluster behind releases' backs. The live
// objects of every release are read with one LIST per kind and namespace
// (one per kind across namespaces when looking in every namespace). A release
// that cannot be checked is reported with its error; the others still are.
func (l *Lifecycle) Drift(ctx context.Context, req DriftRequest) ([]ReleaseDrift, error) {
	revs, failed, err := l.deployedRevisions(ctx, req)
	if err != nil {
		return nil, err
	}
	out := append([]ReleaseDrift(nil), failed...)
	plans, err := l.Planner().planDrift(ctx, revs, req.Namespace == "")
	if err != nil {
		return nil, err
	}
	out = append(out, plans...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// deployedRevisions reads the deployed revision of each release selected.
func (l *Lifecycle) deployedRevisions(ctx context.Context, req DriftRequest) ([]*release.Release, []ReleaseDrift, error) {
	if req.Name != "" {
		if err := releasename.Validate(req.Name); err != nil {
			return nil, nil, fmt.Errorf("release name %q: %w", req.Name, err)
		}
		h, err := l.history(ctx, req.Namespace, req.Name)
		if err != nil {
			return nil, nil, err
		}
		if len(h) == 0 {
			return nil, nil, fmt.Errorf("release %q in namespace %q: %w", req.Name, req.Namespace, ports.ErrReleaseNotFound)
		}
		d := h.LastDeployed()
		if d == nil {
			return nil, nil, fmt.Errorf("release %q in namespace %q has no deployed revision", req.Name, req.Namespace)
		}
		return []*release.Release{d}, nil, nil
	}
	res, err := l.Store.List(ctx, ports.ListQuery{Namespace: req.Namespace, Selector: req.Selector, LatestOnly: true, LabelsOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("list releases: %w", err)
	}
	var failed []ReleaseDrift
	for _, p := range res.Problems {
		failed = append(failed, unreadableDrift(p))
	}
	// A deployed latest revision is read alone; otherwise the release's
	// history tells which revision is deployed. Releases are read concurrently.
	revs := make([]*release.Release, len(res.Releases))
	errs := make([]error, len(res.Releases))
	parallel.Do(len(res.Releases), query.ReadWorkers, func(i int) {
		s := res.Releases[i]
		if s.Status == release.StatusDeployed {
			revs[i], errs[i] = l.Store.Get(ctx, s.Namespace, s.Name, s.Revision)
			return
		}
		h, err := l.Store.History(ctx, s.Namespace, s.Name)
		if err != nil {
			errs[i] = err
			return
		}
		revs[i] = h.LastDeployed()
	})
	deployed := revs[:0]
	for i, s := range res.Releases {
		var re ports.RecordError
		switch {
		case errs[i] == nil && revs[i] != nil:
			deployed = append(deployed, revs[i])
		case errs[i] == nil:
			// No revision of the release is deployed.
		case s.Partial && errors.As(errs[i], &re):
			// The store would have reported it while listing.
			failed = append(failed, unreadableDrift(re))
		default:
			failed = append(failed, ReleaseDrift{Name: s.Name, Namespace: s.Namespace, Revision: s.Revision, Err: fmt.Errorf("read release: %w", errs[i])})
		}
	}
	return deployed, failed, nil
}

// unreadableDrift reports a release whose latest record cannot be read.
func unreadableDrift(p ports.RecordError) ReleaseDrift {
	name := p.Release
	if name == "" {
		name = p.Object
	}
	return ReleaseDrift{Name: name, Namespace: p.Namespace, Err: fmt.Errorf("read %s: %w", p.Object, p.Err)}
}

// planDrift compares the deployed revisions with the cluster.
func (p *Planner) planDrift(ctx context.Context, revs []*release.Release, acrossNamespaces bool) ([]ReleaseDrift, error) {
	out := make([]ReleaseDrift, 0, len(revs))
	objsOf := make([][]ports.Object, len(revs))
	unreadable := make([]bool, len(revs))
	var all []ports.Object
	sc := scopes{cluster: p.Cluster}
	for i, rel := range revs {
		objs, err := sc.objectsOf(ctx, rel.Manifest, rel.Namespace, rel, unservedKeep)
		if err != nil {
			out = append(out, ReleaseDrift{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Version, Err: err})
			unreadable[i] = true
			continue
		}
		objsOf[i] = objs
		all = append(all, objs...)
	}
	live, err := readLiveAcross(ctx, p.Cluster, all, acrossNamespaces)
	if err != nil {
		return nil, err
	}
	// Who may not list namespaces still gets the rest of the report.
	namespaces, _ := p.namespaces(ctx)
	for i, rel := range revs {
		if unreadable[i] {
			continue
		}
		pl := p.newPlan(plan.OpCorrect, PlanOptions{}, rel.Name, rel.Namespace, release.History{rel})
		pl.Release.Revision = rel.Version
		pl.Record = rel
		pl.Stages = stagesOf(driftSteps(objsOf[i], live, namespaces, p.FieldManager))
		out = append(out, ReleaseDrift{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Version, Plan: pl})
	}
	return out, nil
}

// namespaces are the names of the cluster's namespaces.
func (p *Planner) namespaces(ctx context.Context) (map[string]bool, error) {
	items, err := p.Cluster.List(ctx, "v1", "Namespace", "", "")
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	out := make(map[string]bool, len(items))
	for _, ns := range items {
		out[ns.GetName()] = true
	}
	return out, nil
}

// driftSteps says per object what changed: missing objects are created again,
// changed ones updated with their fields taken back, the rest left alone.
// fieldManager is the one the release is written as.
func driftSteps(objs []ports.Object, live liveObjects, namespaces map[string]bool, fieldManager string) []plan.Step {
	steps := make([]plan.Step, 0, len(objs))
	for _, o := range objs {
		step := plan.Step{Ref: ports.RefOf(o), Desired: o, Action: plan.ActionNoOp}
		lv := live.get(o)
		switch {
		case !live.served(o):
			step.Note = unservedNote
		case lv == nil && o.GetNamespace() != "" && namespaces != nil && !namespaces[o.GetNamespace()]:
			step.Action, step.Note = plan.ActionCreate, fmt.Sprintf("missing: namespace %s is gone", o.GetNamespace())
		case lv == nil:
			step.Action, step.Note = plan.ActionCreate, driftMissing
		default:
			step.Live, step.Observed = lv, observed(lv)
			if fields := driftOf(o, lv, fieldManager); len(fields) > 0 {
				step.Action, step.Drift, step.Force, step.Note = plan.ActionUpdate, fields, true, driftChanged
				if ownershipRemoved(lv) {
					step.Note = driftOwnership
				}
			}
		}
		steps = append(steps, step)
	}
	return steps
}

// driftOf lists the fields of desired that drifted in live, those written by
// the release's own field managers (the one it is written as, Helm's, our
// earlier one: the managers it takes over) marked as the release's.
func driftOf(desired, live ports.Object, fieldManager string) []drift.Field {
	fields := drift.Compare(desired, live)
	drift.MarkRelease(fields, takeOverFrom(fieldManager))
	return fields
}

// takeBackDrift makes the steps of a plan whose live objects drifted take
// their fields back (upgrade --correct-drift): an object left alone because it
// looked unchanged is applied again.
func takeBackDrift(pl *plan.Plan, fieldManager string) {
	for i := range pl.Stages {
		for j := range pl.Stages[i].Steps {
			s := &pl.Stages[i].Steps[j]
			if s.Desired == nil || s.Live == nil || s.Action == plan.ActionDelete || s.Action == plan.ActionReplace {
				continue
			}
			if fields := driftOf(s.Desired, s.Live, fieldManager); len(fields) > 0 {
				s.Drift, s.Force = fields, true
				if s.Action == plan.ActionNoOp {
					s.Action, s.Note = plan.ActionUpdate, driftChanged
				}
			}
		}
	}
}

// ownershipRemoved reports whether an object lost the metadata by which Helm
// and kubectl-chart know it belongs to a release.
func ownershipRemoved(live ports.Object) bool {
	ann := live.GetAnnotations()
	return live.GetLabels()[ManagedByLabel] != ManagedByValue || ann[ReleaseNameAnnotation] == "" || ann[ReleaseNamespaceAnnotation] == ""
}

// readLiveAcross reads live objects; across namespaces, one LIST per kind
// covers every namespace.
func readLiveAcross(ctx context.Context, cluster ports.Cluster, objs []ports.Object, across bool) (liveObjects, error) {
	if !across {
		return readLive(ctx, cluster, objs)
	}
	byKind := map[string]ports.Object{}
	for _, o := range objs {
		k := o.GetAPIVersion() + "/" + o.GetKind()
		if byKind[k] == nil {
			byKind[k] = refObject(ports.ObjectRef{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: "*"})
		}
	}
	probes := make([]ports.Object, 0, len(byKind))
	for _, o := range byKind {
		probes = append(probes, o)
	}
	return readLive(ctx, cluster, probes)
}

// CorrectDrift puts a release's objects back as its deployed revision sets
// them (missing ones created, changed fields taken back from whoever changed
// them, fields of other managers left alone), under the release's lock, and
// records the correction on the deployed revision; its manifest and values
// stay as they are.
func (l *Lifecycle) CorrectDrift(ctx context.Context, namespace, name string) (*ReleaseDrift, error) {
	var out *ReleaseDrift
	err := l.unitOfWork(ctx, namespace, name, func(ctx context.Context, h release.History) error {
		d := h.LastDeployed()
		if d == nil {
			return fmt.Errorf("release %q in namespace %q has no deployed revision", name, namespace)
		}
		drifts, err := l.Planner().planDrift(ctx, []*release.Release{d}, false)
		if err != nil {
			return err
		}
		rd := drifts[0]
		out = &rd
		if rd.Err != nil {
			return rd.Err
		}
		if !rd.Drifted() {
			return nil
		}
		ex := l.executor()
		if err := ex.applyStages(ctx, rd.Plan.Stages, applySettings{}); err != nil {
			return fmt.Errorf("correct drift of %s: %w", name, err)
		}
		return ex.recordCorrection(ctx, d, rd.Plan)
	})
	return out, err
}

// correctedMark starts what a correction adds to a revision's description.
const correctedMark = "; drift corrected "

// recordCorrection says on the revision when its drift was corrected and how
// much, replacing what an earlier correction said.
func (e *executor) recordCorrection(ctx context.Context, rel *release.Release, pl *plan.Plan) error {
	n := 0
	for _, s := range pl.Steps() {
		if s.Action.Changes() {
			n++
		}
	}
	desc, _, _ := strings.Cut(rel.Info.Description, correctedMark)
	rel.Info.Description = fmt.Sprintf("%s%s%s (%d object(s))", desc, correctedMark, e.now().UTC().Format(time.RFC3339), n)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := e.Store.Update(ctx, rel); err != nil {
		return fmt.Errorf("record the drift correction of %s: %w", rel.Name, err)
	}
	e.emit(EventPhase, "", fmt.Sprintf("corrected %d object(s) of %s revision %d", n, rel.Name, rel.Version))
	return nil
}
