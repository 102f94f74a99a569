package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// hookSteps are how the hooks of an install or upgrade differ from those of
// the revision it upgrades, as helm-diff shows them (a change of a hook alone
// is a change: helmfile apply then upgrades): test hooks only with
// --include-tests, none with --no-hooks. store is nil without the cluster.
func (h *helmDiffFlags) hookSteps(ctx context.Context, store ports.ReleaseStore, p *plan.Plan) error {
	if p.Record == nil || p.Settings.NoHooks {
		return nil
	}
	var old []manifestObject
	if p.Operation == plan.OpUpgrade && store != nil {
		hist, err := store.History(ctx, p.Release.Namespace, p.Release.Name)
		if err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
			return fmt.Errorf("read the release's hooks: %w", err)
		}
		cur := hist.LastDeployed()
		if cur == nil {
			cur = hist.Latest()
		}
		if cur != nil {
			if old, err = h.hookObjects(cur.Hooks, cur.Namespace); err != nil {
				return err
			}
		}
	}
	new, err := h.hookObjects(p.Record.Hooks, p.Release.Namespace)
	if err != nil {
		return err
	}
	h.hooks = recordsPlan(old, new, manifestObject.identity).Steps()
	for i, st := range h.hooks {
		o := st.Desired
		if o == nil {
			o = st.Live
		}
		h.hooks[i].Note = "hook " + annotation(o, "helm.sh/hook")
	}
	return nil
}

// hookObjects parses hooks into objects, test hooks left out unless --include-tests.
func (h *helmDiffFlags) hookObjects(hooks []*release.Hook, namespace string) ([]manifestObject, error) {
	var out []manifestObject
	for _, hk := range hooks {
		if !h.includeTests && slices.Contains(hk.Events, release.HookTest) {
			continue
		}
		objs, err := manifestObjects(hk.Manifest, namespace)
		if err != nil {
			return nil, fmt.Errorf("hook %s: %w", hk.Path, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// withHooks is p with the hooks' changes as a last stage, to show; p itself
// (saved, printed with -o) never holds them: hooks are run, not applied.
func (h *helmDiffFlags) withHooks(p *plan.Plan) *plan.Plan {
	if len(h.hooks) == 0 {
		return p
	}
	shown := *p
	shown.Stages = append(slices.Clone(p.Stages), plan.Stage{Name: "hooks", Steps: h.hooks})
	return &shown
}
