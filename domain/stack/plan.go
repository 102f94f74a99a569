package stack

import (
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
)

// Action is what a stack plan does to one release.
type Action string

// Actions of a release in a stack plan.
const (
	// ActionInstall installs a release that does not exist.
	ActionInstall Action = "install"
	// ActionUpgrade deploys a new revision of a release.
	ActionUpgrade Action = "upgrade"
	// ActionUnchanged leaves a deployed release whose plan changes nothing.
	ActionUnchanged Action = "no-op"
	// ActionUninstall removes a release marked `installed: false`.
	ActionUninstall Action = "uninstall"
	// ActionAbsent is a release marked `installed: false` that does not exist.
	ActionAbsent Action = "absent"
)

// Changes reports whether carrying the action out writes anything.
func (a Action) Changes() bool {
	return a == ActionInstall || a == ActionUpgrade || a == ActionUninstall
}

// Plan is one plan for a whole stack: each release's plan, ordered in waves
// by the releases' needs.
type Plan struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Environment string `json:"environment"`
	// Releases are in the stack's order.
	Releases []ReleasePlan `json:"releases"`
	// Waves are the releases' IDs in the order they are applied: each
	// wave's releases need only releases of earlier waves.
	Waves [][]ID `json:"waves"`
}

// ReleasePlan is the plan of one release of a stack.
type ReleasePlan struct {
	ID     ID     `json:"id"`
	Action Action `json:"action"`
	Needs  []ID   `json:"needs,omitempty"`
	// After are the releases done before this one starts: its needs, or
	// for a destroy the releases that need it.
	After []ID `json:"after,omitempty"`
	// Wait, WaitForJobs and Timeout are how the release is waited for before
	// the releases that need it start.
	Wait        bool          `json:"wait,omitempty"`
	WaitForJobs bool          `json:"waitForJobs,omitempty"`
	Timeout     time.Duration `json:"timeout,omitempty"`
	// Plan is the release's own plan; nil when the release is absent.
	Plan *plan.Plan `json:"plan,omitempty"`
}

// Plan format names.
const (
	PlanAPIVersion = "kubectl-chart.io/v1alpha1"
	PlanKind       = "StackPlan"
)

// HasChanges reports whether applying the plan changes any release.
func (p *Plan) HasChanges() bool {
	for _, r := range p.Releases {
		if r.Action.Changes() {
			return true
		}
	}
	return false
}

// Release is the plan of the release id, nil when the plan has none.
func (p *Plan) Release(id ID) *ReleasePlan {
	for i := range p.Releases {
		if p.Releases[i].ID == id {
			return &p.Releases[i]
		}
	}
	return nil
}

// ActionOf is what plan pl does to a release: a deployed release whose
// upgrade changes no object is left unchanged.
func ActionOf(pl *plan.Plan, deployed bool) Action {
	switch {
	case pl == nil:
		return ActionAbsent
	case pl.Operation == plan.OpInstall:
		return ActionInstall
	case pl.Operation == plan.OpUninstall:
		return ActionUninstall
	case deployed && !pl.HasChanges():
		return ActionUnchanged
	}
	return ActionUpgrade
}
