package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/sequence"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Sequenced releases (HIP-0025): with --wait=ordered, or by themselves when
// the chart declares an order (resource groups, subchart dependencies), a
// revision's objects are applied in batches — subcharts first in the order
// of their dependencies, then each chart's resource groups level by level,
// then its objects outside groups — and each batch must be ready before the
// next is applied. The plan's stages carry the batches and their waits; the
// revision records that it was sequenced, so that uninstall (in reverse
// order) and rollback (in the order of the revision rolled back to) follow.

// Reasons a plan is sequenced.
const (
	reasonOrdered  = "--wait=ordered"
	reasonDeclared = "the chart declares resource groups or subchart dependencies"
	reasonRecorded = "the revision was deployed in order"
	// orderNever is no reason: the revision is not sequenced whatever it
	// declares (a rollback to a revision that was not).
	orderNever = "-"
)

// forcedOrder is what a wait spec says of sequencing: forced by
// --wait=ordered, else up to the chart.
func forcedOrder(w WaitSpec) string {
	if w.Ordered {
		return reasonOrdered
	}
	return ""
}

// ordering is the order of one revision's objects.
type ordering struct {
	res    *sequence.Result
	items  []sequence.Item
	keys   []objKey
	reason string
}

// stripSequencing removes the annotation the API server refuses as a key
// (two slashes), keeping the rendered manifest as it is.
func stripSequencing(o ports.Object) {
	ann := o.GetAnnotations()
	if _, ok := ann[sequence.AnnotationDependsOnGroups]; !ok {
		return
	}
	delete(ann, sequence.AnnotationDependsOnGroups)
	if len(ann) == 0 {
		if m, ok := o["metadata"].(map[string]any); ok {
			delete(m, "annotations")
		}
		return
	}
	o.SetAnnotations(ann)
}

// orderOf orders a revision's objects when it is to be sequenced: when forced
// (the reason given), or when its chart declares an order. nil otherwise.
func orderOf(ch *chart.Chart, objs []sourced, forced string) (*ordering, error) {
	if forced == orderNever {
		return nil, nil
	}
	o := &ordering{reason: forced}
	for _, s := range objs {
		o.items = append(o.items, sequence.Item{
			Chart: sequence.ChartPath(s.source), Name: ports.RefOf(s.obj).String(),
			Key: fmt.Sprint(keyOf(s.obj)), Annotations: s.annotations,
		})
		o.keys = append(o.keys, keyOf(s.obj))
	}
	if o.reason == "" {
		if !sequence.Declared(ch, o.items) {
			return nil, nil
		}
		o.reason = reasonDeclared
	}
	res, err := sequence.Order(ch, o.items)
	if err != nil {
		return nil, err
	}
	o.res = res
	for _, it := range o.items {
		if _, warn, err := sequence.ReadinessOf(it.Annotations); err != nil {
			return nil, fmt.Errorf("%s: %w", it.Name, err)
		} else if warn != "" {
			o.res.Warnings = append(o.res.Warnings, it.Name+": "+warn)
		}
		if _, err := sequence.TimeoutOf(it.Annotations); err != nil {
			return nil, fmt.Errorf("%s: %w", it.Name, err)
		}
	}
	return o, nil
}

// planStages puts steps into stages: in order when o is set (and says so in
// pl), in Helm's kind order otherwise.
func (o *ordering) planStages(steps []plan.Step, pl *plan.Plan) []plan.Stage {
	if o == nil {
		return stagesOf(steps)
	}
	pl.Sequencing = o.sequencing()
	return o.stages(steps)
}

// objectsOfSourced are the objects of sourced objects.
func objectsOfSourced(src []sourced) []ports.Object {
	out := make([]ports.Object, len(src))
	for i, s := range src {
		out[i] = s.obj
	}
	return out
}

// sequencingOf is what a plan says of its order.
func (o *ordering) sequencing() *plan.Sequencing {
	return &plan.Sequencing{Reason: o.reason, Warnings: append(slices.Clip(o.res.Warnings), o.res.Ignored...)}
}

// record marks a revision as deployed in order.
func (o *ordering) record(rel *release.Release) {
	if o != nil {
		rel.SequencingInfo = &release.SequencingInfo{Enabled: true, Strategy: sequence.StrategyOrdered}
	}
}

// batchOf maps each object to its batch.
func (o *ordering) batchOf() map[objKey]int {
	out := map[objKey]int{}
	for b, batch := range o.res.Batches {
		for _, i := range batch.Items {
			out[o.keys[i]] = b
		}
	}
	return out
}

// timeoutOf is the longest helm.sh/readiness-timeout of a batch's objects.
func (o *ordering) timeoutOf(b sequence.Batch) time.Duration {
	var d time.Duration
	for _, i := range b.Items {
		t, _ := sequence.TimeoutOf(o.items[i].Annotations)
		d = max(d, t)
	}
	return d
}

// stages puts the steps of the objects a revision sets into stages, batch by
// batch (each batch in Helm's kind order and tiers, as unsequenced plans),
// every batch but the last waiting for its objects before the next.
func (o *ordering) stages(steps []plan.Step) []plan.Stage {
	batch := o.batchOf()
	per := make([][]plan.Step, len(o.res.Batches))
	var rest []plan.Step
	for _, s := range steps {
		if b, ok := batch[keyOfRef(s.Ref)]; ok {
			per[b] = append(per[b], s)
		} else {
			rest = append(rest, s)
		}
	}
	var out []plan.Stage
	for b, st := range per {
		if len(st) == 0 {
			continue
		}
		sb := o.res.Batches[b]
		stages := stagesOf(st)
		for i := range stages {
			stages[i].Chart, stages[i].Groups = strings.Join(sb.Chart, "/"), sb.Groups
		}
		last := &stages[len(stages)-1]
		if d := o.timeoutOf(sb); d > 0 {
			last.ReadinessTimeout = d.String()
		}
		last.Wait = true
		out = append(out, stages...)
	}
	out = append(out, stagesOf(rest)...)
	// The last batch is waited for only when the operation waits (--wait).
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Wait {
			out[i].Wait, out[i].ReadinessTimeout = false, ""
			break
		}
	}
	return out
}

// deleteStages puts delete steps of a sequenced revision's objects into
// stages in the reverse of its order, each deleted (and gone) before the
// next: what depends on a group goes before it.
func (o *ordering) deleteStages(steps []plan.Step) []plan.Stage {
	batch := o.batchOf()
	per := make([][]plan.Step, len(o.res.Batches))
	var rest []plan.Step
	for _, s := range steps {
		if b, ok := batch[keyOfRef(s.Ref)]; ok {
			per[b] = append(per[b], s)
		} else {
			rest = append(rest, s)
		}
	}
	var out []plan.Stage
	if len(rest) > 0 {
		out = append(out, plan.Stage{Name: "delete", Steps: rest, Wait: true})
	}
	for b := len(per) - 1; b >= 0; b-- {
		if len(per[b]) == 0 {
			continue
		}
		sb := o.res.Batches[b]
		out = append(out, plan.Stage{Name: "delete", Chart: strings.Join(sb.Chart, "/"), Groups: sb.Groups, Steps: per[b], Wait: true})
	}
	if len(out) > 0 {
		out[len(out)-1].Wait = false
	}
	return out
}

// orderRevision orders the objects of a stored revision when it was deployed
// in order (or when forced); nil otherwise.
func (s scopes) orderRevision(ctx context.Context, rel *release.Release, ns string, forced string) (*ordering, error) {
	if forced == "" && !rel.Sequenced() {
		return nil, nil
	}
	if forced == "" {
		forced = reasonRecorded
	}
	objs, err := s.sourcedObjectsOf(ctx, rel.Manifest, ns, nil, unservedSkip)
	if err != nil {
		return nil, err
	}
	return orderOf(rel.Chart, objs, forced)
}

// checksOf are the custom readiness checks of steps' objects.
func checksOf(steps []plan.Step) map[ports.ObjectRef]ports.ReadinessCheck {
	var out map[ports.ObjectRef]ports.ReadinessCheck
	for _, s := range steps {
		if s.Desired == nil {
			continue
		}
		c, _, err := sequence.ReadinessOf(s.Desired.GetAnnotations())
		if err != nil || c == nil {
			continue
		}
		if out == nil {
			out = map[ports.ObjectRef]ports.ReadinessCheck{}
		}
		out[s.Ref] = func(o ports.Object) ports.ObjectStatus {
			st := c.Evaluate(o)
			return ports.ObjectStatus{Ready: st.Ready, Failed: st.Failed, Message: st.Message}
		}
	}
	return out
}

// stageWaits waits, in a sequenced plan, for each batch before the next,
// within the operation's timeout.
type stageWaits struct {
	deadline time.Time
	// now is the executor's clock: deadlines are its times, and the
	// contexts bounded by them time out after what is left of them.
	now      func() time.Time
	progress func(ports.ObjectStatus)
}

// ctx bounds one wait: by the operation's deadline, and the batch's
// readiness timeout when it has one.
func (w *stageWaits) ctx(ctx context.Context, readinessTimeout string) (context.Context, context.CancelFunc) {
	deadline := w.deadline
	if d, err := time.ParseDuration(readinessTimeout); err == nil && d > 0 {
		if t := w.now().Add(d); t.Before(deadline) {
			deadline = t
		}
	}
	return context.WithTimeout(ctx, deadline.Sub(w.now()))
}

// waitBatch waits until the objects a batch applied are ready.
func (e *executor) waitBatch(ctx context.Context, st plan.Stage, batch []plan.Step, w *stageWaits) error {
	var refs []ports.ObjectRef
	for _, s := range batch {
		refs = append(refs, s.Ref)
	}
	if len(refs) == 0 {
		return nil
	}
	e.emit(EventPhase, "", fmt.Sprintf("waiting for %s to be ready before the next stage (%d object(s))", describeBatch(st), len(refs)))
	wctx, cancel := w.ctx(ctx, st.ReadinessTimeout)
	defer cancel()
	err := e.Cluster.WaitReady(wctx, refs, ports.WaitOptions{Progress: w.progress, Checks: checksOf(batch)})
	if err != nil {
		return fmt.Errorf("%s is not ready, so the stages after it were not applied: %w", describeBatch(st), err)
	}
	return nil
}

// waitGone waits until a stage's deletions are done.
func (e *executor) waitGone(ctx context.Context, st plan.Stage, refs []ports.ObjectRef, w *stageWaits) error {
	if len(refs) == 0 {
		return nil
	}
	wctx, cancel := w.ctx(ctx, "")
	defer cancel()
	if err := e.Cluster.WaitDeleted(wctx, refs); err != nil {
		return fmt.Errorf("%s is not deleted yet, so the stages before it in the release's order were not deleted: %w", describeBatch(st), err)
	}
	return nil
}

// describeBatch names a stage's batch in messages.
func describeBatch(st plan.Stage) string {
	switch {
	case st.Chart == "":
		return "stage " + st.Name
	case len(st.Groups) == 1:
		return fmt.Sprintf("resource group %q of chart %s", st.Groups[0], st.Chart)
	case len(st.Groups) > 1:
		return fmt.Sprintf("resource groups %s of chart %s", quoteAll(st.Groups), st.Chart)
	}
	return "the objects of chart " + st.Chart + " outside resource groups"
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// announce tells that a plan is sequenced, and why.
func (e *executor) announce(pl *plan.Plan) {
	if pl.Sequencing == nil {
		return
	}
	batches := 0
	prev := ""
	for _, st := range pl.Stages {
		if b := st.Chart + "|" + strings.Join(st.Groups, ","); st.Chart != "" && b != prev {
			batches++
			prev = b
		}
	}
	e.emit(EventPhase, "", fmt.Sprintf("sequencing (HIP-0025): %s; %d ordered stage(s), each ready before the next", pl.Sequencing.Reason, batches))
	for _, w := range pl.Sequencing.Warnings {
		e.emit(EventWarning, "", w)
	}
}

// ErrOrder is a release whose objects cannot be ordered.
var ErrOrder = errors.New("cannot order the release's objects")

// orderError wraps a sequence.OrderError for errors.Is(err, ErrOrder).
func orderError(err error) error {
	var oe *sequence.OrderError
	if errors.As(err, &oe) {
		return fmt.Errorf("%w (HIP-0025): %s", ErrOrder, strings.Join(oe.Problems, "; "))
	}
	return err
}

// hasDeletesOnly reports whether a stage only deletes.
func hasDeletesOnly(st plan.Stage) bool {
	return len(st.Steps) > 0 && !slices.ContainsFunc(st.Steps, func(s plan.Step) bool { return s.Action != plan.ActionDelete && s.Action != plan.ActionNoOp })
}

// TemplateStages are the stages installing a rendered manifest would go in
// (template --graph): in the chart's order when it declares one (or when
// ordered), in Helm's kind order and tiers otherwise. Rendered without a
// cluster, objects keep the namespaces they declare.
func TemplateStages(ch *chart.Chart, manifestText string, ordered bool) ([]plan.Stage, *plan.Sequencing, error) {
	src, err := parseSourced(manifestText)
	if err != nil {
		return nil, nil, err
	}
	steps := make([]plan.Step, len(src))
	for i := range src {
		src[i].annotations = src[i].obj.GetAnnotations()
		stripSequencing(src[i].obj)
		steps[i] = plan.Step{Ref: ports.RefOf(src[i].obj), Action: plan.ActionCreate, Desired: src[i].obj}
	}
	forced := ""
	if ordered {
		forced = reasonOrdered
	}
	ord, err := orderOf(ch, src, forced)
	if err != nil {
		return nil, nil, orderError(err)
	}
	pl := &plan.Plan{}
	stages := ord.planStages(steps, pl)
	return stages, pl.Sequencing, nil
}
