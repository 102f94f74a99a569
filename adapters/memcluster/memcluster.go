// Package memcluster is an in-memory ports.Cluster that stands for a real API
// server in use-case and command tests: server-side apply with per-manager
// field ownership and conflicts, resource versions, immutable fields,
// namespaces, CustomResourceDefinitions, finalizers, owner references and
// deletion propagation, label selectors, and readiness that tests set. The
// contract suite in ports/porttest runs unchanged against it and against a
// real control plane.
//
// What it does not simulate: controllers (nothing creates Pods or fills in
// status; readiness is what SetState says), defaulting beyond a Service's
// cluster IP and a Namespace's name label, validation beyond names and
// immutable fields, schema validation and pruning of custom resources, and
// admission.
package memcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chart/kubectl-chart/domain/capabilities"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Operations of managedFields entries.
const (
	OperationApply  = "Apply"
	OperationUpdate = "Update"
)

// Cluster is an in-memory cluster. The zero value is not usable: call New.
// It is safe for concurrent use.
type Cluster struct {
	mu sync.Mutex
	// changed is closed and replaced on every change, waking waits.
	changed     chan struct{}
	clock       ports.Clock
	kubeVersion string
	builtins    map[groupKind]*kindInfo
	kinds       map[groupKind]*kindInfo
	objects     map[objKey]*entry
	rv          int64
	uids        int64
	ips         int
	states      []stateRule
	podLogs     map[string]string
	defaultLog  string
	immutable   map[string][]immutableRule
	// initNamespaces are made by New once every option is in.
	initNamespaces []string
	calls          []Call
	// allowed are the permissions ReviewAccess grants; nil grants all (access.go).
	allowed []ports.Access
}

var _ ports.Cluster = (*Cluster)(nil)

type objKey struct{ group, kind, namespace, name string }

// entry is one stored object: its content without managedFields, and its
// managers in order of first write.
type entry struct {
	obj      map[string]any
	managers []*manager
}

type manager struct {
	name, operation, apiVersion string
	time                        time.Time
	fields                      fieldSet
}

func (m *manager) clone() *manager {
	c := *m
	c.fields = m.fields.clone()
	return &c
}

// Option configures New.
type Option func(*Cluster)

// WithNamespaces creates namespaces besides default, kube-system,
// kube-public and kube-node-lease.
func WithNamespaces(names ...string) Option {
	return func(c *Cluster) { c.initNamespaces = append(c.initNamespaces, names...) }
}

// WithClock sets the clock of creation, deletion and managedFields times
// (default: the real clock).
func WithClock(clock ports.Clock) Option { return func(c *Cluster) { c.clock = clock } }

// WithKubeVersion sets the version Capabilities reports (default v1.36.3).
func WithKubeVersion(version string) Option { return func(c *Cluster) { c.kubeVersion = version } }

// WithPodLog sets what PodLogs writes for pods without a log of their own
// (default: nothing).
func WithPodLog(log string) Option { return func(c *Cluster) { c.defaultLog = log } }

// WithKind serves a custom kind without a CustomResourceDefinition object,
// as if one had been installed (spec.scope Namespaced or Cluster).
func WithKind(apiVersion, kind string, namespaced bool) Option {
	return func(c *Cluster) {
		group, version := splitAPIVersion(apiVersion)
		c.builtins[groupKind{group, kind}] = &kindInfo{group: group, kind: kind, versions: []string{version}, namespaced: namespaced, generation: true}
	}
}

// WithImmutable makes a field of a kind immutable, as a validating rule
// (x-kubernetes-validations: self == oldSelf) would; field is a dotted path
// such as "spec.storage".
func WithImmutable(kind, field string) Option {
	return func(c *Cluster) {
		c.immutable[kind] = append(c.immutable[kind], immutableRule{field: strings.TrimPrefix(field, "."), message: "field is immutable"})
	}
}

// New makes an empty cluster with the default namespaces.
func New(opts ...Option) *Cluster {
	c := &Cluster{
		changed:     make(chan struct{}),
		clock:       ports.SystemClock{},
		kubeVersion: "v1.36.3",
		builtins:    builtinKinds(),
		objects:     map[objKey]*entry{},
		podLogs:     map[string]string{},
		immutable:   map[string][]immutableRule{},
	}
	for _, o := range opts {
		o(c)
	}
	c.refreshKinds()
	for _, n := range append([]string{"default", "kube-system", "kube-public", "kube-node-lease"}, c.initNamespaces...) {
		c.createNamespace(n)
	}
	return c
}

func (c *Cluster) createNamespace(name string) {
	k := objKey{kind: "Namespace", name: name}
	if c.objects[k] != nil {
		return
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}
	c.initCreate(c.kinds[groupKind{"", "Namespace"}], obj)
	c.objects[k] = &entry{obj: obj}
}

// refreshKinds rebuilds the served kinds from the built-ins and the stored
// CustomResourceDefinitions. Called with mu held (or before c is shared).
func (c *Cluster) refreshKinds() {
	kinds := make(map[groupKind]*kindInfo, len(c.builtins))
	for gk, k := range c.builtins {
		kinds[gk] = k
	}
	for key, e := range c.objects {
		if key.group != "apiextensions.k8s.io" || key.kind != "CustomResourceDefinition" {
			continue
		}
		k, err := crdKinds(ports.Object(e.obj))
		if err != nil {
			continue
		}
		if _, taken := kinds[groupKind{k.group, k.kind}]; !taken {
			kinds[groupKind{k.group, k.kind}] = k
		}
	}
	c.kinds = kinds
}

// notify wakes every wait. Called with mu held.
func (c *Cluster) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Cluster) now() time.Time { return c.clock.Now().UTC().Truncate(time.Second) }

func (c *Cluster) nextRV() string {
	c.rv++
	return fmt.Sprint(c.rv)
}

// lookup finds a served kind. Called with mu held.
func (c *Cluster) lookup(apiVersion, kind string) (*kindInfo, error) {
	group, version := splitAPIVersion(apiVersion)
	k := c.kinds[groupKind{group, kind}]
	if k == nil || !k.servesVersion(version) {
		return nil, fmt.Errorf("resource mapping not found for kind %q in version %q: %w", kind, apiVersion, ports.ErrUnknownKind)
	}
	return k, nil
}

func (c *Cluster) keyOf(k *kindInfo, namespace, name string) objKey {
	if !k.namespaced {
		namespace = ""
	}
	return objKey{group: k.group, kind: k.kind, namespace: namespace, name: name}
}

// render is the object as a read returns it: a copy with managedFields.
func (c *Cluster) render(e *entry, apiVersion string) ports.Object {
	obj := copyMap(e.obj)
	if apiVersion != "" {
		if _, version := splitAPIVersion(apiVersion); version != "" {
			obj["apiVersion"] = apiVersion
		}
	}
	if len(e.managers) > 0 {
		mf := make([]any, 0, len(e.managers))
		for _, m := range e.managers {
			mf = append(mf, map[string]any{
				"apiVersion": m.apiVersion,
				"fieldsType": "FieldsV1",
				"fieldsV1":   fieldsV1(m.fields),
				"manager":    m.name,
				"operation":  m.operation,
				"time":       m.time.Format(time.RFC3339),
			})
		}
		meta(obj)["managedFields"] = mf
	}
	return ports.Object(obj)
}

func meta(obj map[string]any) map[string]any {
	m, ok := obj["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		obj["metadata"] = m
	}
	return m
}

// Capabilities reports the kube version and every served API version and kind.
func (c *Cluster) Capabilities(_ context.Context) (*capabilities.Capabilities, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbCapabilities})
	kv, err := capabilities.ParseKubeVersion(c.kubeVersion)
	if err != nil {
		return nil, fmt.Errorf("server version %q: %w", c.kubeVersion, err)
	}
	caps := capabilities.Default("")
	caps.KubeVersion = *kv
	seen := map[string]bool{}
	var versions capabilities.VersionSet
	for _, k := range c.kinds {
		for _, v := range k.versions {
			gv := v
			if k.group != "" {
				gv = k.group + "/" + v
			}
			for _, s := range []string{gv, gv + "/" + k.kind} {
				if !seen[s] {
					seen[s] = true
					versions = append(versions, s)
				}
			}
		}
	}
	sort.Strings(versions)
	caps.APIVersions = versions
	return caps, nil
}

// Namespaced reports whether a kind is namespaced.
func (c *Cluster) Namespaced(_ context.Context, apiVersion, kind string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbNamespaced, Ref: ports.ObjectRef{APIVersion: apiVersion, Kind: kind}})
	k, err := c.lookup(apiVersion, kind)
	if err != nil {
		return false, err
	}
	return k.namespaced, nil
}

// Apply server-side applies obj as opts' field manager.
func (c *Cluster) Apply(ctx context.Context, obj ports.Object, opts ports.ApplyOptions) (ports.Object, error) {
	c.mu.Lock()
	c.record(Call{Verb: VerbApply, Ref: ports.RefOf(obj), DryRun: opts.DryRun, Force: opts.ForceConflicts, Manager: opts.Manager()})
	c.mu.Unlock()
	return c.ApplyAs(ctx, opts.Manager(), obj, opts)
}

// ApplyAs server-side applies obj as manager, as the Cluster's Apply does for
// opts' field manager: conflicts with other managers' fields unless
// opts.ForceConflicts, conflicts only with opts.TakeOverFrom taken over, and
// the fields those managers wrote with updates, or with applies under another
// name, moved to manager (so that fields obj no longer sets are removed), as
// the kube adapter does. Test hook: another tool's apply (kubectl apply
// --server-side, a controller).
func (c *Cluster) ApplyAs(_ context.Context, managerName string, obj ports.Object, opts ports.ApplyOptions) (ports.Object, error) {
	ref := ports.RefOf(obj)
	in, err := normalize(map[string]any(obj))
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", ref, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out, err := c.apply(managerName, in, opts.ForceConflicts, opts.DryRun, nil)
	var ce *ports.ConflictError
	if errors.As(err, &ce) && !opts.ForceConflicts && onlyManagers(ce, opts.TakeOverFrom) {
		out, err = c.apply(managerName, in, true, opts.DryRun, nil)
	}
	if errors.As(err, &ce) && !opts.ForceConflicts {
		return nil, fmt.Errorf("apply %s: %w (use --force-conflicts to take these fields over)", ref, err)
	}
	if err != nil {
		return nil, &ports.ApplyError{Ref: ref, Err: err}
	}
	if !opts.DryRun && len(opts.TakeOverFrom) > 0 {
		if out, err = c.apply(managerName, in, true, false, opts.TakeOverFrom); err != nil {
			return nil, fmt.Errorf("apply %s: take over fields of %v: %w", ref, opts.TakeOverFrom, err)
		}
	}
	return out, nil
}

// onlyManagers reports whether every conflict is with one of managers.
func onlyManagers(ce *ports.ConflictError, managers []string) bool {
	if len(managers) == 0 || len(ce.Conflicts) == 0 {
		return false
	}
	for _, m := range ce.Managers() {
		if !slices.Contains(managers, m) {
			return false
		}
	}
	return true
}

// target validates an incoming object and finds its kind and key. Called
// with mu held.
func (c *Cluster) target(in map[string]any) (*kindInfo, objKey, error) {
	o := ports.Object(in)
	if o.GetAPIVersion() == "" || o.GetKind() == "" {
		return nil, objKey{}, &invalidError{msg: "Object 'Kind' is missing in the object"}
	}
	k, err := c.lookup(o.GetAPIVersion(), o.GetKind())
	if err != nil {
		return nil, objKey{}, err
	}
	if o.GetName() == "" {
		return nil, objKey{}, invalid(k.qualified(), "", []string{"metadata.name: Required value: name is required"})
	}
	if problems := nameProblems(k, o.GetName()); len(problems) > 0 {
		return nil, objKey{}, invalid(k.qualified(), o.GetName(), problems)
	}
	if k.namespaced && o.GetNamespace() == "" {
		// The kube adapter then sends the request to a path the server does not serve.
		return nil, objKey{}, errors.New("the server could not find the requested resource")
	}
	if !k.namespaced {
		o.SetNamespace("")
	}
	return k, c.keyOf(k, o.GetNamespace(), o.GetName()), nil
}

// config is an object's owned part: without identity and server-kept
// metadata (never owned) and, for kinds with a status subresource, status.
func config(k *kindInfo, obj map[string]any) map[string]any {
	out := copyMap(obj)
	delete(out, "apiVersion")
	delete(out, "kind")
	if m, ok := out["metadata"].(map[string]any); ok {
		for _, f := range []string{"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
			"deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"} {
			delete(m, f)
		}
	}
	if m, ok := out["metadata"].(map[string]any); ok && len(m) == 0 {
		delete(out, "metadata")
	}
	if k.status {
		delete(out, "status")
	}
	return out
}

// apply merges in into the live object as manager; with takeOver, the fields
// those managers wrote (upgradeManagers) become manager's first. Called
// with mu held.
func (c *Cluster) apply(managerName string, in map[string]any, force, dryRun bool, takeOver []string) (ports.Object, error) {
	k, key, err := c.target(in)
	if err != nil {
		return nil, err
	}
	ref := ports.RefOf(ports.Object(in))
	e := c.objects[key]
	if rv := str(in, "metadata", "resourceVersion"); rv != "" {
		if e == nil {
			return nil, fmt.Errorf("%s %q not found: %w", k.qualified(), key.name, ports.ErrObjectNotFound)
		}
		if rv != str(e.obj, "metadata", "resourceVersion") {
			return nil, fmt.Errorf("operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", k.qualified(), key.name)
		}
	}
	var live map[string]any
	var managers []*manager
	if e != nil {
		live = e.obj
		for _, m := range e.managers {
			managers = append(managers, m.clone())
		}
	}
	if takeOver != nil {
		if e == nil || !upgradeManagers(&managers, managerName, in["apiVersion"].(string), takeOver) {
			return c.render(e, ""), nil
		}
	}
	cfg := config(k, in)
	applied := leaves(cfg, k.keyedLists)
	appliedSet := fieldSet{}
	for _, l := range applied {
		appliedSet[l.p.String()] = l.p
	}
	var mine *manager
	for _, m := range managers {
		if m.name == managerName && m.operation == OperationApply {
			mine = m
		}
	}
	result := map[string]any{}
	if live != nil {
		result = copyMap(live)
	} else {
		result["apiVersion"], result["kind"] = in["apiVersion"], in["kind"]
		result["metadata"] = map[string]any{"name": key.name}
		if key.namespace != "" {
			meta(result)["namespace"] = key.namespace
		}
	}
	result["apiVersion"] = in["apiVersion"]
	// Fields manager stops applying go, unless another manager owns them.
	if mine != nil {
		var gone []path
		for s, p := range mine.fields {
			if _, still := appliedSet[s]; !still {
				gone = append(gone, p)
			}
		}
		sort.Slice(gone, func(i, j int) bool { return len(gone[i]) > len(gone[j]) })
		for _, p := range gone {
			if p.isKeyField() || ownedByOther(managers, mine, p) {
				continue
			}
			del(result, p)
		}
	}
	for _, l := range applied {
		if _, marker := l.v.(itemMarker); marker {
			set(result, l.p, nil)
			continue
		}
		set(result, l.p, l.v)
	}
	// Other managers' fields whose value changed are conflicts.
	var conflicts []ports.FieldConflict
	printed := map[string]string{}
	for _, m := range managers {
		if m == mine {
			continue
		}
		printed[m.name] = fmt.Sprintf("%q", m.name)
		if m.operation == OperationUpdate {
			printed[m.name] += " using " + m.apiVersion
		}
		for s, p := range m.fields {
			before, hadBefore := get(live, p)
			after, hasAfter := get(result, p)
			if hadBefore == hasAfter && (!hasAfter || equalValues(before, after)) {
				continue
			}
			if !force {
				conflicts = append(conflicts, ports.FieldConflict{Manager: m.name, Field: s})
				continue
			}
			delete(m.fields, s)
		}
	}
	if len(conflicts) > 0 {
		sort.Slice(conflicts, func(i, j int) bool {
			if conflicts[i].Manager != conflicts[j].Manager {
				return conflicts[i].Manager < conflicts[j].Manager
			}
			return conflicts[i].Field < conflicts[j].Field
		})
		return nil, &ports.ConflictError{Ref: ref, Conflicts: conflicts, Err: errors.New(conflictMessage(conflicts, printed))}
	}
	if mine == nil {
		mine = &manager{name: managerName, operation: OperationApply}
		managers = append(managers, mine)
	}
	mine.apiVersion = in["apiVersion"].(string)
	mine.fields = appliedSet
	return c.commit(k, key, e, result, managers, mine, dryRun)
}

// conflictMessage is the API server's message for apply conflicts; printed
// names each manager as the server does.
func conflictMessage(conflicts []ports.FieldConflict, printed map[string]string) string {
	if len(conflicts) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", printed[conflicts[0].Manager], conflicts[0].Field)
	}
	var lines []string
	for i, cf := range conflicts {
		if i == 0 || conflicts[i-1].Manager != cf.Manager {
			lines = append(lines, "conflicts with "+printed[cf.Manager]+":")
		}
		lines = append(lines, "- "+cf.Field)
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(conflicts), strings.Join(lines, "\n"))
}

// ownedByOther reports whether a manager other than mine owns p or a field under it.
func ownedByOther(managers []*manager, mine *manager, p path) bool {
	for _, m := range managers {
		if m == mine {
			continue
		}
		for _, q := range m.fields {
			if q.hasPrefix(p) {
				return true
			}
		}
	}
	return false
}

// upgradeManagers moves the fields that managers in from wrote, with updates
// or with applies under another name, to managerName's apply entry, as the
// kube adapter's take-over patch does, and reports whether there were any.
func upgradeManagers(managers *[]*manager, managerName, apiVersion string, from []string) bool {
	var mine *manager
	var moved fieldSet
	kept := (*managers)[:0:0]
	for _, m := range *managers {
		if slices.Contains(from, m.name) && (m.operation == OperationUpdate || m.name != managerName) {
			if moved == nil {
				moved = fieldSet{}
			}
			for s, p := range m.fields {
				moved[s] = p
			}
			continue
		}
		if m.name == managerName && m.operation == OperationApply {
			mine = m
		}
		kept = append(kept, m)
	}
	if moved == nil {
		return false
	}
	if mine == nil {
		mine = &manager{name: managerName, operation: OperationApply, apiVersion: apiVersion, fields: fieldSet{}}
		kept = append(kept, mine)
	}
	for s, p := range moved {
		mine.fields[s] = p
	}
	*managers = kept
	return true
}

// UpdateAs writes obj whole as manager with a create or an update, not an
// apply, as kubectl create, edit, scale or replace and Helm's client-side
// writes do: manager comes to own (operation Update) every field it adds or
// changes, other managers lose those fields, and nobody owns what obj drops.
// Status is kept for kinds with a status subresource. Removing the last
// finalizer of an object being deleted deletes it. A resourceVersion in obj
// is a precondition. Test hook.
func (c *Cluster) UpdateAs(_ context.Context, managerName string, obj ports.Object) (ports.Object, error) {
	ref := ports.RefOf(obj)
	in, err := normalize(map[string]any(obj))
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", ref, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, key, err := c.target(in)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", ref, err)
	}
	e := c.objects[key]
	if rv := str(in, "metadata", "resourceVersion"); rv != "" && e != nil && rv != str(e.obj, "metadata", "resourceVersion") {
		return nil, fmt.Errorf("update %s: operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", ref, k.qualified(), key.name)
	}
	out, err := c.update(managerName, k, key, in)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", ref, err)
	}
	return out, nil
}

// update writes in whole over the object at key (nil: creates it) as
// managerName, as UpdateAs describes. Called with mu held.
func (c *Cluster) update(managerName string, k *kindInfo, key objKey, in map[string]any) (ports.Object, error) {
	e := c.objects[key]
	result := config(k, in)
	result["apiVersion"], result["kind"] = in["apiVersion"], in["kind"]
	md := meta(result)
	md["name"] = key.name
	if key.namespace != "" {
		md["namespace"] = key.namespace
	}
	var live map[string]any
	var managers []*manager
	if e != nil {
		live = e.obj
		for _, m := range e.managers {
			managers = append(managers, m.clone())
		}
		if k.status {
			if st, ok := live["status"]; ok {
				result["status"] = deepCopy(st)
			}
		}
	}
	var mine *manager
	for _, m := range managers {
		if m.name == managerName && m.operation == OperationUpdate {
			mine = m
		}
	}
	if mine == nil {
		mine = &manager{name: managerName, operation: OperationUpdate, fields: fieldSet{}}
		managers = append(managers, mine)
	}
	mine.apiVersion = in["apiVersion"].(string)
	liveCfg := map[string]any{}
	if live != nil {
		liveCfg = config(k, live)
	}
	for _, l := range leaves(config(k, result), k.keyedLists) {
		if before, ok := get(liveCfg, l.p); !ok || !equalValues(before, l.v) {
			mine.fields[l.p.String()] = l.p
		}
	}
	for _, m := range managers {
		for s, p := range m.fields {
			before, hadBefore := get(liveCfg, p)
			after, hasAfter := get(result, p)
			if !hasAfter || (m != mine && (!hadBefore || !equalValues(before, after))) {
				delete(m.fields, s)
			}
		}
	}
	return c.commit(k, key, e, result, managers, mine, false)
}

// commit validates and stores a write, or with dryRun only returns it. A
// write that changes nothing is not stored. Called with mu held.
func (c *Cluster) commit(k *kindInfo, key objKey, e *entry, result map[string]any, managers []*manager, writer *manager, dryRun bool) (ports.Object, error) {
	kept := managers[:0:0]
	for _, m := range managers {
		if len(m.fields) > 0 {
			kept = append(kept, m)
		}
	}
	managers = kept
	if k.keyedLists {
		omitEmpty(result)
	}
	if k.group == "apiextensions.k8s.io" && k.kind == "CustomResourceDefinition" {
		if _, err := crdKinds(ports.Object(result)); err != nil {
			return nil, err
		}
		if e != nil {
			if err := validateCRDUpdate(key.name, e.obj, result); err != nil {
				return nil, err
			}
		}
	}
	if e == nil {
		if err := c.admitCreate(k, key); err != nil {
			return nil, err
		}
		writer.time = c.now()
		ne := &entry{obj: result, managers: managers}
		if dryRun {
			c.defaults(k, result, nil)
			meta(result)["uid"] = "00000000-0000-0000-0000-000000000000"
			meta(result)["creationTimestamp"] = c.now().Format(time.RFC3339)
			return c.render(ne, ""), nil
		}
		c.initCreate(k, result)
		c.objects[key] = ne
		c.afterWrite(k, key, ne)
		return c.render(ne, ""), nil
	}
	live := e.obj
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"} {
		if v, ok := meta(live)[f]; ok {
			meta(result)[f] = deepCopy(v)
		} else {
			delete(meta(result), f)
		}
	}
	c.defaults(k, result, live)
	if err := validateUpdate(k, c.immutable[k.kind], key, live, result); err != nil {
		return nil, err
	}
	if equalValues(live, result) && sameManagers(e.managers, managers) {
		return c.render(e, ""), nil
	}
	if k.generation && (!equalValues(withoutMetaStatus(live), withoutMetaStatus(result)) ||
		k.generationAnnotations && !equalValues(meta(live)["annotations"], meta(result)["annotations"])) {
		gen, _ := meta(live)["generation"].(int64)
		meta(result)["generation"] = gen + 1
	}
	writer.time = c.now()
	ne := &entry{obj: result, managers: managers}
	if dryRun {
		return c.render(ne, ""), nil
	}
	meta(result)["resourceVersion"] = c.nextRV()
	c.objects[key] = ne
	if _, deleting := meta(result)["deletionTimestamp"]; deleting && len(finalizers(result)) == 0 {
		c.remove(key)
		c.notify()
		return c.render(ne, ""), nil
	}
	c.afterWrite(k, key, ne)
	return c.render(ne, ""), nil
}

// omitEmpty drops the empty maps that built-in kinds' typed encoding omits
// (a ConfigMap applied with data: {} has no data).
func omitEmpty(obj map[string]any) {
	for _, f := range []string{"data", "binaryData", "stringData"} {
		if m, ok := obj[f].(map[string]any); ok && len(m) == 0 {
			delete(obj, f)
		}
	}
	md := meta(obj)
	for _, f := range []string{"labels", "annotations"} {
		if m, ok := md[f].(map[string]any); ok && len(m) == 0 {
			delete(md, f)
		}
	}
}

func sameManagers(a, b []*manager) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].operation != b[i].operation || a[i].apiVersion != b[i].apiVersion || !a[i].fields.equal(b[i].fields) {
			return false
		}
	}
	return true
}

func withoutMetaStatus(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
			out[k] = v
		}
	}
	return out
}

// admitCreate refuses creates the API server refuses before storing:
// namespaced objects in a namespace that does not exist or is terminating,
// custom resources of a terminating definition. Called with mu held.
func (c *Cluster) admitCreate(k *kindInfo, key objKey) error {
	if k.namespaced {
		ns := c.objects[objKey{kind: "Namespace", name: key.namespace}]
		if ns == nil {
			return fmt.Errorf("namespaces %q not found", key.namespace)
		}
		if _, deleting := meta(ns.obj)["deletionTimestamp"]; deleting {
			return fmt.Errorf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", strings.ToLower(k.kind)+"s", key.name, key.namespace)
		}
	}
	if k.crd != "" {
		if crd := c.objects[objKey{group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", name: k.crd}]; crd != nil {
			if _, deleting := meta(crd.obj)["deletionTimestamp"]; deleting {
				return fmt.Errorf("create not allowed while custom resource definition is terminating")
			}
		}
	}
	return nil
}

// initCreate sets what the API server sets on create. Called with mu held.
func (c *Cluster) initCreate(k *kindInfo, obj map[string]any) {
	c.uids++
	md := meta(obj)
	md["uid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", c.uids)
	md["resourceVersion"] = c.nextRV()
	md["creationTimestamp"] = c.now().Format(time.RFC3339)
	if k.generation {
		md["generation"] = int64(1)
	}
	c.defaults(k, obj, nil)
}

// defaults fills in what the API server defaults or allocates, for the few
// kinds where tests see it: a Service's cluster IP (kept when an update
// drops it), a Namespace's name label and phase, a CRD's conditions.
func (c *Cluster) defaults(k *kindInfo, obj, live map[string]any) {
	if k.group != "" && k.crd != "" {
		return
	}
	switch {
	case k.group == "" && k.kind == "Service":
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		if spec["type"] == "ExternalName" {
			return
		}
		if ip, _ := spec["clusterIP"].(string); ip != "" {
			if _, ok := spec["clusterIPs"]; !ok {
				spec["clusterIPs"] = []any{ip}
			}
			return
		}
		if live != nil {
			if lspec, ok := live["spec"].(map[string]any); ok && lspec["clusterIP"] != nil {
				spec["clusterIP"], spec["clusterIPs"] = deepCopy(lspec["clusterIP"]), deepCopy(lspec["clusterIPs"])
				return
			}
		}
		c.ips++
		ip := fmt.Sprintf("10.96.%d.%d", c.ips/250, c.ips%250+1)
		spec["clusterIP"], spec["clusterIPs"] = ip, []any{ip}
		if spec["type"] == nil {
			spec["type"] = "ClusterIP"
		}
	case k.group == "" && k.kind == "Namespace":
		md := meta(obj)
		l, _ := md["labels"].(map[string]any)
		if l == nil {
			l = map[string]any{}
			md["labels"] = l
		}
		l["kubernetes.io/metadata.name"] = md["name"]
		if live == nil {
			obj["spec"] = map[string]any{"finalizers": []any{"kubernetes"}}
			obj["status"] = map[string]any{"phase": "Active"}
		}
	case k.group == "apiextensions.k8s.io" && k.kind == "CustomResourceDefinition":
		if live != nil {
			addStoredVersion(live, obj)
			return
		}
		spec, _ := obj["spec"].(map[string]any)
		var stored []any
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			if m, ok := v.(map[string]any); ok && m["storage"] == true {
				stored = append(stored, m["name"])
			}
		}
		at := c.now().Format(time.RFC3339)
		obj["status"] = map[string]any{
			"acceptedNames": deepCopy(spec["names"]),
			"conditions": []any{
				map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": at},
				map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": at},
			},
			"storedVersions": stored,
		}
	}
}

// afterWrite keeps the served kinds in step with CRDs and wakes waits.
// Called with mu held.
func (c *Cluster) afterWrite(k *kindInfo, _ objKey, _ *entry) {
	if k.group == "apiextensions.k8s.io" && k.kind == "CustomResourceDefinition" {
		c.refreshKinds()
	}
	c.notify()
}

// validateUpdate refuses changes of immutable fields as the API server does
// (HTTP 422, ports.ErrInvalid).
func validateUpdate(k *kindInfo, extra []immutableRule, key objKey, live, next map[string]any) error {
	var problems []string
	for _, r := range append(slices.Clip(k.immutable), extra...) {
		p := dotted(r.field)
		before, had := get(live, p)
		after, has := get(next, p)
		if !had {
			continue
		}
		before, after = without(before, r.except), without(after, r.except)
		if has && equalValues(before, after) {
			continue
		}
		if len(r.except) > 0 {
			problems = append(problems, fmt.Sprintf("%s: Forbidden: %s", r.field, r.message))
			continue
		}
		v, _ := json.Marshal(after)
		problems = append(problems, fmt.Sprintf("%s: Invalid value: %s: %s", r.field, v, r.message))
	}
	if k.group == "" && (k.kind == "ConfigMap" || k.kind == "Secret") && live["immutable"] == true {
		if next["immutable"] != true {
			problems = append(problems, "immutable: Forbidden: field is immutable when `immutable` is set")
		}
		for _, f := range []string{"data", "binaryData", "stringData"} {
			if !equalValues(live[f], next[f]) {
				problems = append(problems, fmt.Sprintf("%s: Forbidden: field is immutable when `immutable` is set", f))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return invalid(k.qualified(), key.name, problems)
}

func dotted(field string) path {
	var p path
	for _, f := range strings.Split(field, ".") {
		p = append(p, elem{name: f})
	}
	return p
}

// without copies v without the sub-fields except names ("a[].b": b of every
// item of the list a).
func without(v any, except []string) any {
	if len(except) == 0 {
		return v
	}
	out := deepCopy(v)
	m, ok := out.(map[string]any)
	if !ok {
		return out
	}
	for _, e := range except {
		list, field, isList := strings.Cut(e, "[].")
		if !isList {
			delete(m, e)
			continue
		}
		items, _ := m[list].([]any)
		for _, it := range items {
			if im, ok := it.(map[string]any); ok {
				delete(im, field)
			}
		}
	}
	return m
}

// str reads a string field.
func str(obj map[string]any, keys ...string) string {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[k]
	}
	s, _ := cur.(string)
	return s
}

func finalizers(obj map[string]any) []any {
	l, _ := meta(obj)["finalizers"].([]any)
	return l
}

// Get reads one object.
func (c *Cluster) Get(_ context.Context, ref ports.ObjectRef) (ports.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbGet, Ref: ref})
	return c.get(ref)
}

// get reads one object; c.mu must be held.
func (c *Cluster) get(ref ports.ObjectRef) (ports.Object, error) {
	k, err := c.lookup(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", ref, err)
	}
	e := c.objects[c.keyOf(k, ref.Namespace, ref.Name)]
	if e == nil || (k.namespaced && ref.Namespace == "") {
		return nil, fmt.Errorf("get %s: %w", ref, ports.ErrObjectNotFound)
	}
	return c.render(e, ref.APIVersion), nil
}

// List reads the objects of a kind in a namespace ("" for all) that match a
// label selector, ordered by namespace and name as the API server lists them.
func (c *Cluster) List(_ context.Context, apiVersion, kind, namespace, selector string) ([]ports.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbList, Ref: ports.ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: namespace}, Selector: selector})
	return c.list(apiVersion, kind, namespace, selector)
}

// list reads the objects of a kind; c.mu must be held.
func (c *Cluster) list(apiVersion, kind, namespace, selector string) ([]ports.Object, error) {
	k, err := c.lookup(apiVersion, kind)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", kind, err)
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, fmt.Errorf("list %s in %q: invalid label selector %q: %w", kind, namespace, selector, err)
	}
	var keys []objKey
	for key := range c.objects {
		if key.group != k.group || key.kind != k.kind || (k.namespaced && namespace != "" && key.namespace != namespace) {
			continue
		}
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].namespace != keys[j].namespace {
			return keys[i].namespace < keys[j].namespace
		}
		return keys[i].name < keys[j].name
	})
	out := []ports.Object{}
	for _, key := range keys {
		e := c.objects[key]
		if sel.Matches(labels.Set(ports.Object(e.obj).GetLabels())) {
			out = append(out, c.render(e, apiVersion))
		}
	}
	return out, nil
}

// Delete deletes one object: objects with finalizers are marked and stay
// until their finalizers are removed; dependents (by owner reference) are
// deleted after (background), before (foreground) or orphaned.
func (c *Cluster) Delete(_ context.Context, ref ports.ObjectRef, propagation ports.Propagation) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(Call{Verb: VerbDelete, Ref: ref, Propagation: propagation})
	k, err := c.lookup(ref.APIVersion, ref.Kind)
	if err != nil {
		return fmt.Errorf("delete %s: %w", ref, err)
	}
	key := c.keyOf(k, ref.Namespace, ref.Name)
	if c.objects[key] == nil || (k.namespaced && ref.Namespace == "") {
		return fmt.Errorf("delete %s: %w", ref, ports.ErrObjectNotFound)
	}
	switch propagation {
	case "", ports.PropagationBackground, ports.PropagationForeground, ports.PropagationOrphan:
	default:
		p := strings.ToUpper(string(propagation[:1])) + string(propagation[1:])
		return fmt.Errorf("delete %s: %w", ref, invalid("DeleteOptions.meta.k8s.io", "",
			[]string{fmt.Sprintf(`propagationPolicy: Unsupported value: %q: supported values: "Foreground", "Background", "Orphan", "nil"`, p)}))
	}
	c.deleteObject(key, propagation)
	c.notify()
	return nil
}

// deleteObject deletes or marks one object. Called with mu held.
func (c *Cluster) deleteObject(key objKey, propagation ports.Propagation) {
	e := c.objects[key]
	if e == nil {
		return
	}
	md := meta(e.obj)
	if _, deleting := md["deletionTimestamp"]; deleting {
		return
	}
	uid, _ := md["uid"].(string)
	switch {
	case key.kind == "Namespace" && key.group == "":
		c.markDeleting(e)
		e.obj["status"] = map[string]any{"phase": "Terminating"}
		for k := range c.objects {
			if k.namespace == key.name {
				c.deleteObject(k, ports.PropagationBackground)
			}
		}
		c.finish(key)
		return
	case key.kind == "CustomResourceDefinition" && key.group == "apiextensions.k8s.io":
		c.markDeleting(e)
		if crk, err := crdKinds(ports.Object(e.obj)); err == nil {
			for k := range c.objects {
				if k.group == crk.group && k.kind == crk.kind {
					c.deleteObject(k, ports.PropagationBackground)
				}
			}
		}
		c.finish(key)
		return
	}
	switch propagation {
	case ports.PropagationOrphan:
		for _, dk := range c.dependents(uid) {
			c.dropOwner(dk, uid)
		}
	case ports.PropagationForeground:
		if deps := c.dependents(uid); len(deps) > 0 {
			c.markDeleting(e)
			md["finalizers"] = append(finalizers(e.obj), "foregroundDeletion")
			for _, dk := range deps {
				c.deleteObject(dk, ports.PropagationForeground)
			}
			c.finish(key)
			return
		}
	}
	if len(finalizers(e.obj)) > 0 {
		c.markDeleting(e)
		return
	}
	c.remove(key)
}

func (c *Cluster) markDeleting(e *entry) {
	md := meta(e.obj)
	md["deletionTimestamp"] = c.now().Format(time.RFC3339)
	md["deletionGracePeriodSeconds"] = int64(0)
	if g, ok := md["generation"].(int64); ok {
		md["generation"] = g + 1
	}
	md["resourceVersion"] = c.nextRV()
}

// finish removes a deleting object whose finalizers the cluster itself
// handles once their work is done: a namespace's content, a CRD's custom
// resources, foreground deletion's dependents. Called with mu held.
func (c *Cluster) finish(key objKey) {
	e := c.objects[key]
	if e == nil {
		return
	}
	if _, deleting := meta(e.obj)["deletionTimestamp"]; !deleting {
		return
	}
	switch {
	case key.kind == "Namespace" && key.group == "":
		for k := range c.objects {
			if k.namespace == key.name {
				return
			}
		}
	case key.kind == "CustomResourceDefinition" && key.group == "apiextensions.k8s.io":
		if crk, err := crdKinds(ports.Object(e.obj)); err == nil {
			for k := range c.objects {
				if k.group == crk.group && k.kind == crk.kind {
					return
				}
			}
		}
	}
	fin := finalizers(e.obj)
	if i := slices.Index(fin, any("foregroundDeletion")); i >= 0 {
		uid, _ := meta(e.obj)["uid"].(string)
		if len(c.dependents(uid)) > 0 {
			return
		}
		fin = slices.Delete(slices.Clone(fin), i, i+1)
		if len(fin) == 0 {
			delete(meta(e.obj), "finalizers")
		} else {
			meta(e.obj)["finalizers"] = fin
		}
		meta(e.obj)["resourceVersion"] = c.nextRV()
	}
	if len(fin) == 0 {
		c.remove(key)
	}
}

// remove drops an object for good, then collects its dependents and lets
// deletions that waited for it finish. Called with mu held.
func (c *Cluster) remove(key objKey) {
	e := c.objects[key]
	if e == nil {
		return
	}
	delete(c.objects, key)
	uid, _ := meta(e.obj)["uid"].(string)
	if key.kind == "CustomResourceDefinition" && key.group == "apiextensions.k8s.io" {
		c.refreshKinds()
	}
	for _, dk := range c.dependents(uid) {
		if !c.anyOwnerLeft(dk) {
			c.deleteObject(dk, ports.PropagationBackground)
		}
	}
	var waiting []objKey
	for k, o := range c.objects {
		if _, deleting := meta(o.obj)["deletionTimestamp"]; deleting {
			waiting = append(waiting, k)
		}
	}
	for _, k := range waiting {
		c.finish(k)
	}
}

// dependents are the objects with an owner reference to uid.
func (c *Cluster) dependents(uid string) []objKey {
	if uid == "" {
		return nil
	}
	var out []objKey
	for k, o := range c.objects {
		for _, r := range ownerRefs(o.obj) {
			if r["uid"] == uid {
				out = append(out, k)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

func ownerRefs(obj map[string]any) []map[string]any {
	l, _ := meta(obj)["ownerReferences"].([]any)
	out := make([]map[string]any, 0, len(l))
	for _, r := range l {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func (c *Cluster) anyOwnerLeft(key objKey) bool {
	e := c.objects[key]
	if e == nil {
		return false
	}
	for _, r := range ownerRefs(e.obj) {
		for _, o := range c.objects {
			if meta(o.obj)["uid"] == r["uid"] {
				return true
			}
		}
	}
	return false
}

// dropOwner removes the owner reference to uid, as the garbage collector
// does when it orphans. Called with mu held.
func (c *Cluster) dropOwner(key objKey, uid string) {
	e := c.objects[key]
	var kept []any
	for _, r := range ownerRefs(e.obj) {
		if r["uid"] != uid {
			kept = append(kept, r)
		}
	}
	md := meta(e.obj)
	if len(kept) == 0 {
		delete(md, "ownerReferences")
	} else {
		md["ownerReferences"] = kept
	}
	p := path{{name: "metadata"}, {name: "ownerReferences"}}
	for _, m := range e.managers {
		if _, owned := m.fields[p.String()]; owned && len(kept) == 0 {
			delete(m.fields, p.String())
		}
	}
	md["resourceVersion"] = c.nextRV()
}

// InstallCRDs creates the CustomResourceDefinitions that do not exist yet,
// as fieldManager with a create; existing ones are left alone.
func (c *Cluster) InstallCRDs(ctx context.Context, crds []ports.Object, fieldManager string) error {
	for _, crd := range crds {
		c.mu.Lock()
		c.record(Call{Verb: VerbInstallCRD, Ref: ports.RefOf(crd), Manager: ports.FieldManagerOr(fieldManager)})
		exists := c.objects[objKey{group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", name: crd.GetName()}] != nil
		c.mu.Unlock()
		if exists {
			continue
		}
		if _, err := c.UpdateAs(ctx, ports.FieldManagerOr(fieldManager), crd); err != nil {
			return fmt.Errorf("create CustomResourceDefinition %s: %w", crd.GetName(), err)
		}
	}
	return nil
}

// PodLogs writes the pod's log, the one SetPodLog gave, else WithPodLog's,
// for any container.
func (c *Cluster) PodLogs(_ context.Context, namespace, pod, _ string, w io.Writer) error {
	c.mu.Lock()
	c.record(Call{Verb: VerbPodLogs, Ref: ports.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: namespace, Name: pod}})
	_, exists := c.objects[objKey{kind: "Pod", namespace: namespace, name: pod}]
	log, ok := c.podLogs[namespace+"/"+pod]
	if !ok {
		log = c.defaultLog
	}
	c.mu.Unlock()
	if !exists {
		return fmt.Errorf("get pod %s/%s: %w", namespace, pod, ports.ErrObjectNotFound)
	}
	if _, err := io.WriteString(w, log); err != nil {
		return fmt.Errorf("read logs of pod %s/%s: %w", namespace, pod, err)
	}
	return nil
}
