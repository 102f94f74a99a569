package action

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Ownership metadata: Helm and kubectl-chart recognise a release's objects by it,
// so that each adopts the other's objects.
const (
	ManagedByLabel             = "app.kubernetes.io/managed-by"
	ManagedByValue             = "Helm"
	ReleaseNameAnnotation      = "meta.helm.sh/release-name"
	ReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
	// ResourcePolicyAnnotation "keep" leaves an object in place when the release
	// stops rendering it or is uninstalled.
	ResourcePolicyAnnotation = "helm.sh/resource-policy"
	keepPolicy               = "keep"
	// helmFieldManager is the manager of Helm's writes; its fields are taken over
	// without --force-conflicts so that releases move between the tools.
	helmFieldManager = "helm"
)

// applyWorkers bounds concurrent writes of objects of one kind.
const applyWorkers = 32

// Lifecycle holds what the mutating use cases drive.
type Lifecycle struct {
	Cluster ports.Cluster
	Store   ports.ReleaseStore
	// Locker serialises operations on a release; nil runs without a lock.
	Locker ports.ReleaseLocker
	Clock  ports.Clock
	// Holder names this process in the lock.
	Holder ports.LockHolder
	// Events receives progress; may be nil.
	Events func(Event)
}

// Event is one step of an operation, for progress displays and -o json.
type Event struct {
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	Object  string    `json:"object,omitempty"`
	Ready   *bool     `json:"ready,omitempty"`
	Message string    `json:"message,omitempty"`
}

// Event types.
const (
	EventPhase     = "phase"
	EventApplied   = "applied"
	EventDeleted   = "deleted"
	EventStatus    = "status"
	EventHook      = "hook"
	EventWarning   = "warning"
	EventRecovered = "recovered"
)

// WaitSpec says whether and how long to wait for readiness.
type WaitSpec struct {
	Wait        bool
	WaitForJobs bool
	// Timeout bounds each wait and each hook (Helm's --timeout, default 5m).
	Timeout time.Duration
}

func (w WaitSpec) timeout() time.Duration {
	if w.Timeout <= 0 {
		return 5 * time.Minute
	}
	return w.Timeout
}

func (l *Lifecycle) now() time.Time {
	if l.Clock != nil {
		return l.Clock.Now()
	}
	return time.Now()
}

func (l *Lifecycle) emit(typ, object, msg string) {
	if l.Events != nil {
		l.Events(Event{Time: l.now(), Type: typ, Object: object, Message: msg})
	}
}

func (l *Lifecycle) progress(s ports.ObjectStatus) {
	if l.Events != nil {
		ready := s.Ready
		l.Events(Event{Time: l.now(), Type: EventStatus, Object: s.Ref.String(), Ready: &ready, Message: s.Message})
	}
}

// ErrLockLost ends an operation whose lock could not be renewed: another
// operation may have taken the release over.
var ErrLockLost = errors.New("the release lock was lost (not renewed in time); stopping")

// lock takes the release's lock and returns a context that ends if the lock is
// lost. When the lock was taken over from a dead holder, that is reported; the
// pending revision it left is recovered by the operation.
func (l *Lifecycle) lock(ctx context.Context, namespace, name string) (context.Context, func(), error) {
	if l.Locker == nil {
		return ctx, func() {}, nil
	}
	lk, err := l.Locker.Acquire(ctx, namespace, name, l.Holder)
	if err != nil {
		return nil, nil, err
	}
	if h, ok := lk.Recovered(); ok {
		l.emit(EventRecovered, "", fmt.Sprintf("took over the lock of %s, which expired", h))
	}
	lctx, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	go func() {
		select {
		case <-lk.Lost():
			cancel(ErrLockLost)
		case <-stop:
		}
	}()
	return lctx, func() {
		close(stop)
		cancel(nil)
		rctx, done := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer done()
		_ = lk.Release(rctx)
	}, nil
}

// recoverPending marks revisions left pending by an interrupted operation as
// failed. It runs under the release's lock, so no live operation owns them.
func (l *Lifecycle) recoverPending(ctx context.Context, h release.History) error {
	for _, r := range h {
		if r.Info == nil || !r.Info.Status.IsPending() {
			continue
		}
		from := r.Info.Status
		if err := r.Apply(release.EventFailed, fmt.Sprintf("%s interrupted; recovered by a later operation", from)); err != nil {
			return err
		}
		if err := l.Store.Update(ctx, r); err != nil {
			return fmt.Errorf("recover revision %d of %s: %w", r.Version, r.Name, err)
		}
		l.emit(EventRecovered, "", fmt.Sprintf("revision %d was left %s by an interrupted operation; marked failed", r.Version, from))
	}
	return nil
}

// history reads a release's history; an unknown release is an empty history.
func (l *Lifecycle) history(ctx context.Context, namespace, name string) (release.History, error) {
	h, err := l.Store.History(ctx, namespace, name)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read history of release %q: %w", name, err)
	}
	return h, nil
}

// record records the outcome of a revision with a context that outlives a
// cancelled operation (Ctrl-C still records the failure).
func (l *Lifecycle) record(ctx context.Context, r *release.Release, ev release.Event, desc string) error {
	if err := r.Apply(ev, desc); err != nil {
		return err
	}
	if ev == release.EventSucceeded {
		// Superseding or failing an older revision leaves its time alone:
		// history shows when each revision was deployed.
		r.Info.LastDeployed = release.Time{Time: l.now()}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := l.Store.Update(ctx, r); err != nil {
		return fmt.Errorf("record revision %d of %s as %s: %w", r.Version, r.Name, r.Info.Status, err)
	}
	return nil
}

// objects parses a manifest into objects, puts namespaced objects without a
// namespace into ns and, with owner set, marks them as the release's.
func (l *Lifecycle) objects(ctx context.Context, text, ns string, owner *release.Release) ([]ports.Object, error) {
	return l.objectsOf(ctx, text, ns, owner, false)
}

// objectsOf is objects; with skipUnservedKinds, objects of kinds the cluster does
// not serve are left out instead of failing: none of them can exist (their CRD was
// deleted, or the cluster is a new one), which is all that deleting needs to know.
func (l *Lifecycle) objectsOf(ctx context.Context, text, ns string, owner *release.Release, skipUnservedKinds bool) ([]ports.Object, error) {
	parsedObjs, err := parseObjects(text)
	if err != nil {
		return nil, err
	}
	objs := parsedObjs[:0]
	for _, o := range parsedObjs {
		namespaced, err := l.Cluster.Namespaced(ctx, o.GetAPIVersion(), o.GetKind())
		if skipUnservedKinds && errors.Is(err, ports.ErrUnknownKind) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("object %s %q: %w", o.GetKind(), o.GetName(), err)
		}
		if !namespaced {
			o.SetNamespace("")
		} else if o.GetNamespace() == "" {
			o.SetNamespace(ns)
		}
		if owner != nil {
			setOwner(o, owner)
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// parseObjects reads the objects of a multi-document manifest, expanding lists.
func parseObjects(text string) ([]ports.Object, error) {
	var out []ports.Object
	for _, doc := range manifest.Split(text) {
		var u ports.Object
		if err := yaml.Unmarshal([]byte(doc), &u); err != nil {
			return nil, fmt.Errorf("parse manifest: %w", err)
		}
		if len(u) == 0 {
			continue
		}
		items := []ports.Object{u}
		if u.IsList() {
			items = u.Items()
		}
		for _, o := range items {
			if o.GetKind() == "" || o.GetAPIVersion() == "" {
				return nil, fmt.Errorf("object %q has no kind or apiVersion", o.GetName())
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// objKey identifies an object across API versions, as a release diff needs.
type objKey struct{ group, kind, namespace, name string }

func keyOf(o ports.Object) objKey {
	return objKey{o.Group(), o.GetKind(), o.GetNamespace(), o.GetName()}
}

// minus returns the objects of a whose key is not in b.
func minus(a, b []ports.Object) []ports.Object {
	in := make(map[objKey]bool, len(b))
	for _, o := range b {
		in[keyOf(o)] = true
	}
	var out []ports.Object
	for _, o := range a {
		if !in[keyOf(o)] {
			out = append(out, o)
		}
	}
	return out
}

func setOwner(o ports.Object, r *release.Release) {
	labels := o.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedByLabel] = ManagedByValue
	o.SetLabels(labels)
	ann := o.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[ReleaseNameAnnotation] = r.Name
	ann[ReleaseNamespaceAnnotation] = r.Namespace
	o.SetAnnotations(ann)
}

// OwnershipError is an existing object that another release or tool owns.
type OwnershipError struct {
	Ref     ports.ObjectRef
	Release string
	Reasons []string
}

func (e *OwnershipError) Error() string {
	where := ""
	if e.Ref.Namespace != "" {
		where = fmt.Sprintf(" in namespace %q", e.Ref.Namespace)
	}
	return fmt.Sprintf("%s %q%s exists and cannot be imported into the current release: invalid ownership metadata; %s",
		e.Ref.Kind, e.Ref.Name, where, strings.Join(e.Reasons, "; "))
}

// checkOwnership refuses objects that exist and belong to something else.
// Objects of one kind in one namespace are listed at once.
func (l *Lifecycle) checkOwnership(ctx context.Context, objs []ports.Object, r *release.Release) error {
	type key struct{ apiVersion, kind, ns string }
	byKey := map[key][]ports.Object{}
	var keys []key
	for _, o := range objs {
		k := key{o.GetAPIVersion(), o.GetKind(), o.GetNamespace()}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], o)
	}
	for _, k := range keys {
		want := byKey[k]
		live := map[string]ports.Object{}
		if len(want) > 3 {
			items, err := l.Cluster.List(ctx, k.apiVersion, k.kind, k.ns, "")
			if err != nil && !errors.Is(err, ports.ErrUnknownKind) {
				return fmt.Errorf("check existing objects: %w", err)
			}
			for i := range items {
				live[items[i].GetName()] = items[i]
			}
		} else {
			for _, o := range want {
				got, err := l.Cluster.Get(ctx, ports.RefOf(o))
				if errors.Is(err, ports.ErrObjectNotFound) || errors.Is(err, ports.ErrUnknownKind) {
					continue
				}
				if err != nil {
					return fmt.Errorf("check existing objects: %w", err)
				}
				live[o.GetName()] = got
			}
		}
		for _, o := range want {
			got := live[o.GetName()]
			if got == nil {
				continue
			}
			if reasons := ownershipProblems(got, r); len(reasons) > 0 {
				return &OwnershipError{Ref: ports.RefOf(o), Release: r.Name, Reasons: reasons}
			}
		}
	}
	return nil
}

func ownershipProblems(live ports.Object, r *release.Release) []string {
	var out []string
	if v, ok := live.GetLabels()[ManagedByLabel]; !ok {
		out = append(out, fmt.Sprintf("label validation error: missing key %q: must be set to %q", ManagedByLabel, ManagedByValue))
	} else if v != ManagedByValue {
		out = append(out, fmt.Sprintf("label validation error: key %q must equal %q: current value is %q", ManagedByLabel, ManagedByValue, v))
	}
	ann := live.GetAnnotations()
	for _, a := range []struct{ key, want string }{{ReleaseNameAnnotation, r.Name}, {ReleaseNamespaceAnnotation, r.Namespace}} {
		if v, ok := ann[a.key]; !ok {
			out = append(out, fmt.Sprintf("annotation validation error: missing key %q: must be set to %q", a.key, a.want))
		} else if v != a.want {
			out = append(out, fmt.Sprintf("annotation validation error: key %q must equal %q: current value is %q", a.key, a.want, v))
		}
	}
	return out
}

// applyOptions are the apply settings of one operation.
type applyOptions struct {
	force  bool
	dryRun bool
	// replace deletes and recreates objects whose change the server refuses
	// (immutable fields).
	replace bool
}

// barrierKinds are kinds whose objects must exist before later kinds are
// created: without them the API server refuses or misadmits what follows.
var barrierKinds = map[string]bool{
	"Namespace": true, "CustomResourceDefinition": true, "PriorityClass": true,
	"ResourceQuota": true, "LimitRange": true, "ServiceAccount": true,
}

// applyAll applies objects in Helm's order, in tiers (applyTier): within the
// first two tiers, kinds between barriers go at the same time, each kind with
// its own workers (a kind the server creates slowly, such as Services with
// their cluster IPs, no longer holds up the others); barrier kinds and the
// kinds of the last tier are applied one kind at a time, and CRDs are waited
// for before what follows.
func (l *Lifecycle) applyAll(ctx context.Context, objs []ports.Object, opts applyOptions) error {
	var stage [][]ports.Object
	flush := func() error {
		err := l.applyStage(ctx, stage, opts)
		stage = nil
		return err
	}
	for start := 0; start < len(objs); {
		end := start + 1
		for end < len(objs) && objs[end].GetKind() == objs[start].GetKind() {
			end++
		}
		batch := objs[start:end]
		start = end
		kind := batch[0].GetKind()
		tier := applyTier(kind)
		if !barrierKinds[kind] && tier < lastTier {
			if len(stage) > 0 && applyTier(stage[0][0].GetKind()) != tier {
				if err := flush(); err != nil {
					return err
				}
			}
			stage = append(stage, batch)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if err := l.applyBatch(ctx, batch, opts); err != nil {
			return err
		}
		if kind == "CustomResourceDefinition" && !opts.dryRun {
			refs := make([]ports.ObjectRef, len(batch))
			for i, o := range batch {
				refs[i] = ports.RefOf(o)
			}
			if err := l.Cluster.WaitReady(ctx, refs, ports.WaitOptions{}); err != nil {
				return fmt.Errorf("wait for CRDs: %w", err)
			}
		}
	}
	return flush()
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

// applyStage applies batches of different kinds concurrently.
func (l *Lifecycle) applyStage(ctx context.Context, batches [][]ports.Object, opts applyOptions) error {
	if len(batches) == 1 {
		return l.applyBatch(ctx, batches[0], opts)
	}
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { errs[i] = l.applyBatch(ctx, b, opts) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (l *Lifecycle) applyBatch(ctx context.Context, batch []ports.Object, opts applyOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan ports.Object)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for range min(applyWorkers, len(batch)) {
		wg.Go(func() {
			for o := range work {
				if err := l.applyOne(ctx, o, opts); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, o := range batch {
		select {
		case work <- o:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

func (l *Lifecycle) applyOne(ctx context.Context, o ports.Object, opts applyOptions) error {
	ao := ports.ApplyOptions{ForceConflicts: opts.force, TakeOverFrom: []string{helmFieldManager}, DryRun: opts.dryRun}
	_, err := l.Cluster.Apply(ctx, o, ao)
	if err != nil && opts.replace && !opts.dryRun && isInvalid(err) {
		ref := ports.RefOf(o)
		l.emit(EventPhase, ref.String(), "replacing: the change needs a new object")
		if derr := l.Cluster.Delete(ctx, ref, ports.PropagationBackground); derr != nil && !errors.Is(derr, ports.ErrObjectNotFound) {
			return derr
		}
		if werr := l.Cluster.WaitDeleted(ctx, []ports.ObjectRef{ref}); werr != nil {
			return werr
		}
		_, err = l.Cluster.Apply(ctx, o, ao)
	}
	if err != nil {
		return err
	}
	l.emit(EventApplied, ports.RefOf(o).String(), "")
	return nil
}

// isInvalid recognises the server's refusal of an immutable-field change.
func isInvalid(err error) bool {
	s := err.Error()
	return strings.Contains(s, "field is immutable") || strings.Contains(s, "Invalid value") || strings.Contains(s, "is invalid")
}

// deleteAll deletes objects in Helm's uninstall order, leaving those with the
// keep policy; it returns the kept ones and waits for the rest to go when asked.
func (l *Lifecycle) deleteAll(ctx context.Context, objs []ports.Object, prop ports.Propagation, wait bool) (kept []ports.ObjectRef, err error) {
	sorted := append([]ports.Object(nil), objs...)
	rank := map[string]int{}
	for i, k := range manifest.UninstallOrder {
		rank[k] = i
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		ri, iok := rank[sorted[i].GetKind()]
		rj, jok := rank[sorted[j].GetKind()]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			// Unknown kinds (custom resources) go first, before their CRDs.
			return !iok
		}
		return sorted[i].GetKind() < sorted[j].GetKind()
	})
	var deleted []ports.ObjectRef
	var errs []error
	for _, o := range sorted {
		ref := ports.RefOf(o)
		if o.GetAnnotations()[ResourcePolicyAnnotation] == keepPolicy {
			kept = append(kept, ref)
			continue
		}
		err := l.Cluster.Delete(ctx, ref, prop)
		switch {
		case errors.Is(err, ports.ErrObjectNotFound), errors.Is(err, ports.ErrUnknownKind):
		case err != nil:
			errs = append(errs, err)
		default:
			deleted = append(deleted, ref)
			l.emit(EventDeleted, ref.String(), "")
		}
	}
	if len(errs) > 0 {
		return kept, errors.Join(errs...)
	}
	if wait && len(deleted) > 0 {
		if err := l.Cluster.WaitDeleted(ctx, deleted); err != nil {
			return kept, err
		}
	}
	return kept, nil
}

// waitReady waits for objects when asked, within the timeout.
func (l *Lifecycle) waitReady(ctx context.Context, objs []ports.Object, w WaitSpec) error {
	if !w.Wait && !w.WaitForJobs {
		return nil
	}
	refs := make([]ports.ObjectRef, 0, len(objs))
	for _, o := range objs {
		if !w.Wait && o.GetKind() != "Job" {
			continue
		}
		refs = append(refs, ports.RefOf(o))
	}
	l.emit(EventPhase, "", fmt.Sprintf("waiting for %d object(s) to be ready (timeout %s)", len(refs), w.timeout()))
	ctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	return l.Cluster.WaitReady(ctx, refs, ports.WaitOptions{WaitForJobs: w.WaitForJobs, Progress: l.progress})
}

// runHooks runs a release's hooks of one event in weight order, waiting for
// Jobs and Pods to complete and honouring the delete policies.
func (l *Lifecycle) runHooks(ctx context.Context, r *release.Release, ev release.HookEvent, timeout time.Duration) error {
	var hooks []*release.Hook
	for _, h := range r.Hooks {
		for _, e := range h.Events {
			if e == ev {
				hooks = append(hooks, h)
				break
			}
		}
	}
	sort.SliceStable(hooks, func(i, j int) bool {
		if hooks[i].Weight != hooks[j].Weight {
			return hooks[i].Weight < hooks[j].Weight
		}
		return hooks[i].Name < hooks[j].Name
	})
	var succeeded [][]ports.Object
	for _, h := range hooks {
		objs, err := l.runHook(ctx, r, h, ev, timeout)
		if err != nil {
			return err
		}
		if hasPolicy(h, release.HookSucceeded) {
			succeeded = append(succeeded, objs)
		}
	}
	// Succeeded hooks go only once every hook of the event ran: later hooks
	// may use earlier ones (a Job running as a hook's ServiceAccount).
	for _, objs := range succeeded {
		if _, err := l.deleteAll(ctx, objs, ports.PropagationBackground, false); err != nil {
			return fmt.Errorf("%s hooks: delete after success: %w", ev, err)
		}
	}
	return nil
}

func hasPolicy(h *release.Hook, p release.HookDeletePolicy) bool {
	if len(h.DeletePolicies) == 0 {
		return p == release.HookBeforeHookCreation
	}
	for _, q := range h.DeletePolicies {
		if q == p {
			return true
		}
	}
	return false
}

func (l *Lifecycle) runHook(ctx context.Context, r *release.Release, h *release.Hook, ev release.HookEvent, timeout time.Duration) ([]ports.Object, error) {
	objs, err := l.objects(ctx, h.Manifest, r.Namespace, nil)
	if err != nil {
		return nil, fmt.Errorf("%s hook %s: %w", ev, h.Path, err)
	}
	if hasPolicy(h, release.HookBeforeHookCreation) {
		if _, err := l.deleteAll(ctx, objs, ports.PropagationBackground, true); err != nil {
			return nil, fmt.Errorf("%s hook %s: delete the previous run: %w", ev, h.Path, err)
		}
	}
	l.emit(EventHook, h.Kind+" "+h.Name, fmt.Sprintf("running %s hook", ev))
	h.LastRun = release.HookExecution{StartedAt: release.Time{Time: l.now()}, Phase: release.HookPhaseRunning}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = l.applyAll(hctx, objs, applyOptions{force: true})
	if err == nil {
		var refs []ports.ObjectRef
		for _, o := range objs {
			if o.GetKind() == "Job" || o.GetKind() == "Pod" {
				refs = append(refs, ports.RefOf(o))
			}
		}
		if len(refs) > 0 {
			err = l.Cluster.WaitReady(hctx, refs, ports.WaitOptions{Completion: true, Progress: l.progress})
		}
	}
	h.LastRun.CompletedAt = release.Time{Time: l.now()}
	if err != nil {
		h.LastRun.Phase = release.HookPhaseFailed
		if hasPolicy(h, release.HookFailed) {
			_, _ = l.deleteAll(context.WithoutCancel(ctx), objs, ports.PropagationBackground, false)
		}
		return nil, fmt.Errorf("%s hook %s failed: %w", ev, h.Path, err)
	}
	h.LastRun.Phase = release.HookPhaseSucceeded
	l.emit(EventHook, h.Kind+" "+h.Name, fmt.Sprintf("%s hook succeeded", ev))
	return objs, nil
}

// skipUnchanged returns the objects that need applying. An object is skipped
// only when the previous revision applied exactly the same object (so no field
// is to be removed) and its live state still holds every field with the same
// value. One list per kind and namespace replaces an apply per object, which
// makes an upgrade that changes little cheap; any doubt applies.
func (l *Lifecycle) skipUnchanged(ctx context.Context, objs, previous []ports.Object) []ports.Object {
	prev := make(map[objKey]ports.Object, len(previous))
	for _, o := range previous {
		prev[keyOf(o)] = o
	}
	type key struct{ apiVersion, kind, ns string }
	groups := map[key]map[string]ports.Object{}
	for _, o := range objs {
		k := key{o.GetAPIVersion(), o.GetKind(), o.GetNamespace()}
		if groups[k] != nil || !reflect.DeepEqual(prev[keyOf(o)], o) {
			continue
		}
		items, err := l.Cluster.List(ctx, k.apiVersion, k.kind, k.ns, "")
		live := map[string]ports.Object{}
		if err == nil {
			for _, it := range items {
				live[it.GetName()] = it
			}
		}
		groups[k] = live
	}
	var out []ports.Object
	for _, o := range objs {
		live := groups[key{o.GetAPIVersion(), o.GetKind(), o.GetNamespace()}][o.GetName()]
		if live == nil || !reflect.DeepEqual(prev[keyOf(o)], o) || !subset(map[string]any(o), map[string]any(live)) {
			out = append(out, o)
		}
	}
	if skipped := len(objs) - len(out); skipped > 0 {
		l.emit(EventPhase, "", fmt.Sprintf("%d object(s) already up to date", skipped))
	}
	return out
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
	wf, wok := number(want)
	hf, hok := number(have)
	return wok && hok && wf == hf
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	return 0, false
}
