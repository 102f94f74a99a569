package action

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Preflight: before an operation changes anything, the planner asks the API
// server whether the caller may do everything the plan needs (each verb on
// each resource in each namespace: the writes of its steps, the reads of
// planning and waiting, its hooks, the release records and the lock). A
// missing permission refuses the operation before any object, release record
// or Lease is written; a preview (diff, --dry-run=server) reports them as the
// plan's problems.

// Preflight is what an operation's permissions are checked for besides its
// plan: the adapters it writes with, and how it runs.
type Preflight struct {
	// Store keeps the release records and Locker locks the release; those
	// kept as objects of the cluster (ports.ClusterBacked) need permissions.
	Store  ports.ReleaseStore
	Locker ports.ReleaseLocker
	// Exec is how the plan will be carried out (waits, --atomic ...).
	Exec ExecOptions
}

// preflightFor is the preflight of an operation carried out as x; nil when
// the lifecycle skips preflights (--skip-preflight).
func (l *Lifecycle) preflightFor(x ExecOptions) *Preflight {
	if l.SkipPreflight || l.Cluster == nil {
		return nil
	}
	return &Preflight{Store: l.Store, Locker: l.Locker, Exec: x}
}

// permissionsError is the refusal of an operation lacking permissions.
func permissionsError(denied []ports.Access) error {
	denied = ports.SortAccess(denied)
	msgs := make([]string, len(denied))
	for i, a := range denied {
		msgs[i] = a.String()
	}
	return &plan.PermissionsError{Missing: msgs}
}

// accessSet collects permissions.
type accessSet struct {
	out []ports.Access
	// crds are the resources the plan's CRDs serve, by group/kind.
	crds map[string]ports.Access
}

// add adds verbs on the resource of objects like ref (its kind's; or its
// CRD's plural when one of the plan's CRDs serves it).
func (s *accessSet) add(ref ports.ObjectRef, verbs ...string) {
	base := ports.Access{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace}
	if r, ok := s.crds[groupOf(ref.APIVersion)+"/"+ref.Kind]; ok {
		base.Group, base.Resource = r.Group, r.Resource
	}
	for _, v := range verbs {
		a := base
		a.Verb = v
		s.out = append(s.out, a)
	}
}

// addResource adds verbs on a resource named directly.
func (s *accessSet) addResource(group, resource, namespace string, verbs ...string) {
	for _, v := range verbs {
		s.out = append(s.out, ports.Access{Verb: v, Group: group, Resource: resource, Namespace: namespace})
	}
}

var crdRef = ports.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}

// crdResources are the resources CRDs serve, by group/kind.
func crdResources(crds []ports.Object) map[string]ports.Access {
	out := map[string]ports.Access{}
	for _, crd := range crds {
		spec, _ := crd["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		plural, _ := names["plural"].(string)
		if kind != "" && plural != "" {
			out[group+"/"+kind] = ports.Access{Group: group, Resource: plural}
		}
	}
	return out
}

// crdKey is the group/kind a CRD serves.
func crdKey(crd ports.Object) string {
	spec, _ := crd["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	return group + "/" + kind
}

// refsOf names objects.
func refsOf(objs []ports.Object) []ports.ObjectRef {
	out := make([]ports.ObjectRef, len(objs))
	for i, o := range objs {
		out[i] = ports.RefOf(o)
	}
	return out
}

// preflightReads checks, before planning reads the live objects (one LIST per
// kind and namespace, and the chart's CRDs), that it may. When it may not, no
// plan can be made: the error names those permissions together with the
// others the operation is known to need without reading (create and patch of
// what the revision sets, patch of what it keeps, delete of what it drops, the
// release records and the lock).
func (p *Planner) preflightReads(ctx context.Context, opts PlanOptions, op plan.Operation, set plan.Settings, ns string, h release.History,
	target, previous []ports.Object, crds []ports.Object, policy CRDPolicy) error {
	pf := opts.Preflight
	if pf == nil || p.Cluster == nil {
		return nil
	}
	var reads accessSet
	for _, r := range append(refsOf(target), refsOf(previous)...) {
		reads.add(r, ports.VerbList)
	}
	if len(crds) > 0 {
		reads.add(crdRef, ports.VerbGet)
	}
	if policy == CRDsUpgrade {
		// Upgrading a CRD reads its objects, to check them against it.
		for _, r := range crdResources(crds) {
			reads.addResource(r.Group, r.Resource, "", ports.VerbList)
		}
	}
	denied, err := p.Cluster.ReviewAccess(ctx, reads.out)
	if err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	if len(denied) == 0 {
		return nil
	}
	writes := accessSet{crds: crdResources(crds)}
	prev := map[objKey]bool{}
	for _, o := range previous {
		prev[keyOf(o)] = true
	}
	for _, o := range target {
		if prev[keyOf(o)] {
			writes.add(ports.RefOf(o), ports.VerbPatch)
		} else {
			writes.add(ports.RefOf(o), ports.VerbCreate, ports.VerbPatch)
		}
	}
	for _, o := range minus(previous, target) {
		if !keptByPolicy(o) {
			writes.add(ports.RefOf(o), ports.VerbDelete)
		}
	}
	if policy == CRDsUpgrade && len(crds) > 0 {
		writes.add(crdRef, ports.VerbPatch)
	}
	writes.out = append(writes.out, backingAccess(pf, op, set, ns, h)...)
	more, err := p.Cluster.ReviewAccess(ctx, writes.out)
	if err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	return permissionsError(append(denied, more...))
}

// preflight checks every permission executing pl needs. An operation is
// refused with a *plan.PermissionsError; a preview (ServerDryRun) records
// each missing permission as a problem of the plan and reports false, so that
// the server's dry run, which would only repeat the refusals, is skipped.
func (p *Planner) preflight(ctx context.Context, pl *plan.Plan, h release.History, opts PlanOptions) (bool, error) {
	if opts.Preflight == nil || p.Cluster == nil {
		return true, nil
	}
	denied, err := p.Cluster.ReviewAccess(ctx, accessOf(pl, h, opts.Preflight, p.FieldManager))
	if err != nil {
		return false, fmt.Errorf("preflight: %w", err)
	}
	if len(denied) == 0 {
		return true, nil
	}
	if !opts.ServerDryRun {
		return false, permissionsError(denied)
	}
	for _, a := range ports.SortAccess(denied) {
		pl.Problems = append(pl.Problems, plan.Problem{Type: plan.ProblemForbidden, Message: a.String()})
	}
	return false, nil
}

// Preflight checks the permissions a saved plan needs, before it is executed.
func (p *Planner) Preflight(ctx context.Context, pl *plan.Plan, h release.History, pf *Preflight) error {
	_, err := p.preflight(ctx, pl, h, PlanOptions{Preflight: pf})
	return err
}

// accessOf lists the permissions executing pl needs, as pf carries it out
// writing as fieldManager.
func accessOf(pl *plan.Plan, h release.History, pf *Preflight, fieldManager string) []ports.Access {
	var crds []ports.Object
	for _, s := range pl.CRDs {
		crds = append(crds, s.Desired)
	}
	set := accessSet{crds: crdResources(crds)}
	x := pf.Exec
	ns := pl.Release.Namespace
	for _, s := range pl.CRDs {
		set.add(s.Ref, ports.VerbGet)
		switch s.Action {
		case plan.ActionCreate:
			set.add(s.Ref, ports.VerbCreate, ports.VerbList, ports.VerbWatch)
		case plan.ActionUpdate:
			set.add(s.Ref, ports.VerbPatch, ports.VerbList, ports.VerbWatch)
			if r, ok := crdResources([]ports.Object{s.Desired})[crdKey(s.Desired)]; ok {
				set.addResource(r.Group, r.Resource, "", ports.VerbList)
			}
		}
	}
	undo := x.Atomic || x.CleanupOnFail
	// A sequenced plan watches its batches (ready, or gone) between stages.
	staged := slices.ContainsFunc(pl.Stages, func(st plan.Stage) bool { return st.Wait })
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if s.Note == unservedNote {
				continue
			}
			if s.Note != crdFirstNote {
				set.add(s.Ref, ports.VerbList)
			}
			switch s.Action {
			case plan.ActionCreate:
				set.add(s.Ref, ports.VerbCreate, ports.VerbPatch)
				if undo {
					set.add(s.Ref, ports.VerbDelete)
				}
			case plan.ActionUpdate, plan.ActionAdopt:
				set.add(s.Ref, ports.VerbPatch)
				if heldByPrevious(s.Live, fieldManager) {
					// Fields Helm or our earlier manager wrote are moved
					// over with a JSON patch, after a fresh read when it
					// meets a concurrent write.
					set.add(s.Ref, ports.VerbGet)
				}
			case plan.ActionReplace:
				if s.Note == helmReplaceNote {
					set.add(s.Ref, ports.VerbGet, ports.VerbUpdate)
					break
				}
				set.add(s.Ref, ports.VerbDelete, ports.VerbCreate, ports.VerbPatch, ports.VerbWatch)
			case plan.ActionDelete:
				set.add(s.Ref, ports.VerbDelete)
				if x.Wait && pl.Operation == plan.OpUninstall {
					set.add(s.Ref, ports.VerbWatch)
				}
			}
			waits := x.Wait || (x.WaitForJobs && s.Ref.Kind == "Job")
			if waits && s.Desired != nil && s.Action != plan.ActionDelete || staged {
				set.add(s.Ref, ports.VerbList, ports.VerbWatch)
			}
		}
	}
	if pl.Operation == plan.OpInstall && pl.Settings.CreateNamespace {
		set.add(ports.ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: ns}, ports.VerbGet, ports.VerbCreate, ports.VerbPatch)
	}
	set.out = append(set.out, hookAccess(pl)...)
	set.out = append(set.out, backingAccess(pf, pl.Operation, pl.Settings, ns, h)...)
	return set.out
}

// hookAccess lists what running the plan's hooks needs: writing and deleting
// their objects (before-hook-creation is the default policy), and watching
// Jobs and Pods, and deletions, until they are done.
func hookAccess(pl *plan.Plan) []ports.Access {
	if pl.Record == nil || len(pl.Hooks) == 0 {
		return nil
	}
	events := map[release.HookEvent]bool{}
	for _, h := range pl.Hooks {
		events[h.Event] = true
	}
	var set accessSet
	for _, h := range pl.Record.Hooks {
		if !slices.ContainsFunc(h.Events, func(e release.HookEvent) bool { return events[e] }) {
			continue
		}
		objs, err := parseObjects(h.Manifest)
		if err != nil {
			continue // running the hook fails, naming it
		}
		for _, o := range objs {
			ref := ports.RefOf(o)
			if ref.Namespace == "" {
				// The reviewer clears it for cluster-scoped kinds.
				ref.Namespace = pl.Release.Namespace
			}
			set.add(ref, ports.VerbCreate, ports.VerbPatch, ports.VerbDelete, ports.VerbList, ports.VerbWatch)
		}
	}
	return set.out
}

// backingAccess lists what the release records and the lock need, when they
// are objects of the cluster: reading the history, recording revisions,
// pruning or purging them; getting, creating, renewing and deleting the Lease.
func backingAccess(pf *Preflight, op plan.Operation, set plan.Settings, ns string, h release.History) []ports.Access {
	var out accessSet
	if g, r, ok := backing(pf.Store); ok {
		verbs := []string{ports.VerbGet, ports.VerbList}
		switch op {
		case plan.OpInstall, plan.OpUpgrade, plan.OpRollback:
			verbs = append(verbs, ports.VerbCreate, ports.VerbUpdate)
			prunes := pf.Exec.HistoryMax > 0 && len(h.Prune(pf.Exec.HistoryMax-1)) > 0
			if prunes || (op == plan.OpInstall && pf.Exec.Atomic) {
				verbs = append(verbs, ports.VerbDelete)
			}
		case plan.OpUninstall:
			if !set.Purge {
				verbs = append(verbs, ports.VerbUpdate)
			}
			if !set.KeepHistory {
				verbs = append(verbs, ports.VerbDelete)
			}
		default:
			verbs = append(verbs, ports.VerbUpdate)
		}
		out.addResource(g, r, ns, verbs...)
	}
	if g, r, ok := backing(pf.Locker); ok {
		out.addResource(g, r, ns, ports.VerbGet, ports.VerbCreate, ports.VerbUpdate, ports.VerbDelete)
	}
	return out.out
}

// backing names the resource an adapter keeps its state in, if the cluster's.
func backing(adapter any) (group, resource string, ok bool) {
	if cb, is := adapter.(ports.ClusterBacked); is {
		return cb.BackingResource()
	}
	return "", "", false
}

// storeAccessDenied checks, when the history cannot be read, whether the
// caller may read and write the release records and take the lock: a refusal
// names those permissions (the objects' cannot be known without the history).
func (l *Lifecycle) storeAccessDenied(ctx context.Context, op plan.Operation, namespace string, pf *Preflight) error {
	if pf == nil {
		return nil
	}
	want := backingAccess(pf, op, plan.Settings{}, namespace, nil)
	if len(want) == 0 {
		return nil
	}
	denied, err := l.Cluster.ReviewAccess(ctx, want)
	if err != nil || len(denied) == 0 {
		return nil
	}
	return permissionsError(denied)
}
