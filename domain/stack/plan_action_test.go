package stack

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

func TestActionOf(t *testing.T) {
	hook := func(name, manifest string, events ...release.HookEvent) *release.Hook {
		return &release.Hook{Name: name, Kind: "Job", Manifest: manifest, Events: events}
	}
	deployed := func(hooks ...*release.Hook) *release.Release {
		return &release.Release{Info: &release.Info{Status: release.StatusDeployed}, Hooks: hooks}
	}
	upgrade := func(changes bool, hooks ...*release.Hook) *plan.Plan {
		a := plan.ActionNoOp
		if changes {
			a = plan.ActionUpdate
		}
		return &plan.Plan{Operation: plan.OpUpgrade, Stages: []plan.Stage{{Steps: []plan.Step{{Action: a}}}}, Record: &release.Release{Hooks: hooks}}
	}
	migrate := hook("migrate", "kind: Job\nspec: one\n", release.HookPreUpgrade)
	tests := map[string]struct {
		plan   *plan.Plan
		latest *release.Release
		want   Action
	}{
		"nothing planned":         {plan: nil, latest: deployed(), want: ActionAbsent},
		"install":                 {plan: &plan.Plan{Operation: plan.OpInstall}, want: ActionInstall},
		"uninstall":               {plan: &plan.Plan{Operation: plan.OpUninstall}, latest: deployed(), want: ActionUninstall},
		"no object, same hooks":   {plan: upgrade(false, migrate), latest: deployed(migrate), want: ActionUnchanged},
		"an object changes":       {plan: upgrade(true, migrate), latest: deployed(migrate), want: ActionUpgrade},
		"a hook alone changes":    {plan: upgrade(false, hook("migrate", "kind: Job\nspec: two\n", release.HookPreUpgrade)), latest: deployed(migrate), want: ActionUpgrade},
		"a hook is added":         {plan: upgrade(false, migrate, hook("seed", "kind: Job\n", release.HookPostUpgrade)), latest: deployed(migrate), want: ActionUpgrade},
		"a hook is removed":       {plan: upgrade(false), latest: deployed(migrate), want: ActionUpgrade},
		"a test hook changes":     {plan: upgrade(false, hook("t", "kind: Pod\nb\n", release.HookTest)), latest: deployed(hook("t", "kind: Pod\na\n", release.HookTest)), want: ActionUnchanged},
		"no-hooks ignores hooks":  {plan: func() *plan.Plan { p := upgrade(false); p.Settings.NoHooks = true; return p }(), latest: deployed(migrate), want: ActionUnchanged},
		"latest failed":           {plan: upgrade(false, migrate), latest: &release.Release{Info: &release.Info{Status: release.StatusFailed}, Hooks: []*release.Hook{migrate}}, want: ActionUpgrade},
		"trailing spaces are not": {plan: upgrade(false, hook("migrate", "kind: Job\nspec: one", release.HookPreUpgrade)), latest: deployed(migrate), want: ActionUnchanged},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ActionOf(tc.plan, tc.latest); got != tc.want {
				t.Errorf("ActionOf = %q, want %q", got, tc.want)
			}
		})
	}
}
