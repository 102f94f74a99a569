package stack

import (
	"maps"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
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

// ActionOf is what plan pl does to a release whose latest revision is latest
// (nil: none): a deployed release whose upgrade changes no object and no hook
// is left unchanged. Hooks count as helm-diff counts them for helmfile apply:
// a changed hook alone is a change, a changed test hook is not.
func ActionOf(pl *plan.Plan, latest *release.Release) Action {
	deployed := latest != nil && latest.Info != nil && latest.Info.Status == release.StatusDeployed
	switch {
	case pl == nil:
		return ActionAbsent
	case pl.Operation == plan.OpInstall:
		return ActionInstall
	case pl.Operation == plan.OpUninstall:
		return ActionUninstall
	case deployed && !pl.HasChanges() && !hooksChanged(latest, pl):
		return ActionUnchanged
	}
	return ActionUpgrade
}

// hooksChanged reports whether the hooks pl records differ from latest's,
// test hooks left out (the plan's own NoHooks runs none).
func hooksChanged(latest *release.Release, pl *plan.Plan) bool {
	if pl.Settings.NoHooks || pl.Record == nil {
		return false
	}
	return !maps.Equal(hookManifests(latest.Hooks), hookManifests(pl.Record.Hooks))
}

// hookManifests are the manifests of hooks other than tests, by kind and name.
func hookManifests(hooks []*release.Hook) map[string]string {
	out := make(map[string]string, len(hooks))
	for _, h := range hooks {
		if h == nil || h.IsTest() {
			continue
		}
		out[h.Kind+"/"+h.Name] = strings.TrimSpace(h.Manifest)
	}
	return out
}
