// Package plan holds the Plan value: what an operation on a release will change,
// computed by reading only, so that it can be shown (diff), saved, reviewed and
// then executed exactly.
package plan

import (
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/drift"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Operation is what a plan does to its release.
type Operation string

// Operations.
const (
	OpInstall   Operation = "install"
	OpUpgrade   Operation = "upgrade"
	OpRollback  Operation = "rollback"
	OpUninstall Operation = "uninstall"
	OpTest      Operation = "test"
	// OpCorrect puts a release's objects back as its deployed revision set them.
	OpCorrect Operation = "correct-drift"
)

// Action is what a step does to one object.
type Action string

// Actions. Adopt takes over an object that exists but that the previous
// revision did not have; NoOp leaves an object as it is (unchanged, kept by its
// resource policy, or already gone).
const (
	ActionCreate  Action = "create"
	ActionUpdate  Action = "update"
	ActionReplace Action = "replace"
	ActionDelete  Action = "delete"
	ActionAdopt   Action = "adopt"
	ActionNoOp    Action = "no-op"
)

// Actions lists every action in display order.
func Actions() []Action {
	return []Action{ActionCreate, ActionUpdate, ActionReplace, ActionAdopt, ActionDelete, ActionNoOp}
}

// Changes reports whether the action writes to the cluster.
func (a Action) Changes() bool { return a != ActionNoOp && a != "" }

// Plan is an operation on one release, computed before anything changes.
type Plan struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Operation  Operation `json:"operation"`
	// Command is the command that planned it (an upgrade --install can plan an install).
	Command Operation  `json:"command"`
	Release ReleaseRef `json:"release"`
	// Cluster binds the plan to one cluster (its API server URL).
	Cluster string `json:"cluster"`
	// ChartDigest and ValuesDigest identify what was rendered.
	ChartDigest  string   `json:"chartDigest,omitempty"`
	ValuesDigest string   `json:"valuesDigest,omitempty"`
	Settings     Settings `json:"settings"`
	// Record is the revision the operation records (install, upgrade and
	// rollback), or the revision it acts on (uninstall, test).
	Record *release.Release `json:"record,omitempty"`
	// RecordLabels are the record's storage labels (--labels).
	RecordLabels map[string]string `json:"recordLabels,omitempty"`
	// CRDs are the chart's crds/ files, created before anything else.
	CRDs []Step `json:"crds,omitempty"`
	// Stages are applied in order; the steps of one stage may go concurrently.
	Stages []Stage `json:"stages,omitempty"`
	// Hooks are the hooks the operation runs, per event, in order.
	Hooks []HookRun `json:"hooks,omitempty"`
	// Problems are what the planner found that may stop the operation.
	Problems []Problem `json:"problems,omitempty"`
	// Sequencing is set when the stages follow the chart's order (HIP-0025):
	// each waits for its batch before the next.
	Sequencing *Sequencing `json:"sequencing,omitempty"`
	// DryRun says whether steps carry the server's dry-run result.
	DryRun bool `json:"dryRun"`
	// LookedUp says the chart's templates read the cluster with lookup:
	// planned after other releases changed objects, it may differ.
	LookedUp bool `json:"lookedUp,omitempty"`
}

// ReleaseRef names the release and the revisions a plan is computed from.
type ReleaseRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Revision is the revision the plan records (0 for uninstall and test).
	Revision int `json:"revision,omitempty"`
	// Base is the latest revision when the plan was made (0: none).
	Base int `json:"base"`
	// BaseStatus is that revision's status.
	BaseStatus release.Status `json:"baseStatus,omitempty"`
	// Target is the revision a rollback returns to.
	Target int `json:"target,omitempty"`
}

// Settings are the choices that shaped the plan; executing it keeps them.
type Settings struct {
	ForceConflicts bool `json:"forceConflicts,omitempty"`
	ForceReplace   bool `json:"forceReplace,omitempty"`
	// HelmForceReplace fails an upgrade or rollback with ForceReplace that
	// applies server-side, as Helm 4 does, and otherwise fails it where the
	// server refuses a change, as Helm's replacement of the object with an
	// update does (installed as helm); as kubectl chart the objects the server
	// refuses to change are deleted and created again.
	HelmForceReplace bool `json:"helmForceReplace,omitempty"`
	NoHooks          bool `json:"noHooks,omitempty"`
	TakeOwnership    bool `json:"takeOwnership,omitempty"`
	CreateNamespace  bool `json:"createNamespace,omitempty"`
	// Replace re-uses the name of an uninstalled or failed release (install --replace).
	Replace bool `json:"replace,omitempty"`
	// KeepHistory, Cascade and Description are uninstall's.
	KeepHistory bool              `json:"keepHistory,omitempty"`
	Cascade     ports.Propagation `json:"cascade,omitempty"`
	Description string            `json:"description,omitempty"`
	// Purge deletes the history of a release already uninstalled.
	Purge bool `json:"purge,omitempty"`
	// TestFilter selects test hooks (name=NAME, !name=NAME).
	TestFilter []string `json:"testFilter,omitempty"`
}

// Stage is a set of steps applied together.
type Stage struct {
	Name string `json:"name"`
	// WaitEstablished waits for the stage's CRDs before the next stage.
	WaitEstablished bool `json:"waitEstablished,omitempty"`
	// Chart and Groups say what a stage of a sequenced plan (HIP-0025)
	// applies: a chart's resource groups ("web/db" and ["database"]), or its
	// objects outside groups (no groups). A batch of several kinds spans
	// consecutive stages of the same chart and groups.
	Chart  string   `json:"chart,omitempty"`
	Groups []string `json:"groups,omitempty"`
	// Wait waits, after this stage, until the objects of its batch are
	// ready (deleted, for a stage of deletions) before the next stage.
	Wait bool `json:"wait,omitempty"`
	// ReadinessTimeout bounds that wait (helm.sh/readiness-timeout, as a
	// duration); empty: what is left of the operation's timeout.
	ReadinessTimeout string `json:"readinessTimeout,omitempty"`
	Steps            []Step `json:"steps"`
}

// Batch names a sequenced stage's batch: "web/db database", or the chart
// alone; "" for a stage of a plan not sequenced.
func (s Stage) Batch() string {
	if len(s.Groups) == 0 {
		return s.Chart
	}
	return s.Chart + " " + strings.Join(s.Groups, ", ")
}

// Sequencing is how a sequenced plan orders its stages (HIP-0025).
type Sequencing struct {
	// Reason says why: --wait=ordered, the chart's annotations, or the
	// revision rolled back to (or uninstalled) having been sequenced.
	Reason string `json:"reason"`
	// Warnings are findings that do not stop the operation.
	Warnings []string `json:"warnings,omitempty"`
}

// Step is one object and what happens to it.
type Step struct {
	Ref    ports.ObjectRef `json:"ref"`
	Action Action          `json:"action"`
	// Observed is the live object as read when planning; nil when it did not exist.
	Observed *Observed `json:"observed,omitempty"`
	// Desired is the object as the release sets it (nil for deletes).
	Desired ports.Object `json:"desired,omitempty"`
	// Live is the object as read (for showing what changes).
	Live ports.Object `json:"live,omitempty"`
	// Result is the object as the API server says it would be after the step
	// (server-side dry run); nil when not asked for or not possible.
	Result ports.Object `json:"result,omitempty"`
	// Note says why a step is what it is (kept by policy, kind not served ...).
	Note string `json:"note,omitempty"`
	// Drift lists the fields the release sets that changed behind its back.
	Drift []drift.Field `json:"drift,omitempty"`
	// Force takes the release's fields back from the managers that changed them.
	Force bool `json:"force,omitempty"`
}

// Observed is what a plan remembers of a live object to tell whether it changed.
type Observed struct {
	ResourceVersion string `json:"resourceVersion"`
	UID             string `json:"uid"`
}

// HookRun is one hook the operation runs.
type HookRun struct {
	Event  release.HookEvent `json:"event"`
	Kind   string            `json:"kind"`
	Name   string            `json:"name"`
	Weight int               `json:"weight"`
}

// ProblemType classifies a problem.
type ProblemType string

// Problem types.
const (
	ProblemConflict  ProblemType = "field-manager-conflict"
	ProblemImmutable ProblemType = "immutable-field"
	ProblemUnserved  ProblemType = "kind-not-served"
	ProblemRejected  ProblemType = "rejected"
)

// Problem is something the planner found about one object.
type Problem struct {
	Type    ProblemType     `json:"type"`
	Ref     ports.ObjectRef `json:"ref"`
	Message string          `json:"message"`
}

// Steps are every step of every stage, in order, the CRDs first.
func (p *Plan) Steps() []Step {
	out := append([]Step(nil), p.CRDs...)
	for _, s := range p.Stages {
		out = append(out, s.Steps...)
	}
	return out
}

// Counts are the number of steps per action.
func (p *Plan) Counts() map[Action]int {
	c := map[Action]int{}
	for _, s := range p.Steps() {
		c[s.Action]++
	}
	return c
}

// HasChanges reports whether executing the plan changes any object.
func (p *Plan) HasChanges() bool {
	for _, s := range p.Steps() {
		if s.Action.Changes() {
			return true
		}
	}
	return false
}
