package action

import (
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// A refused object in each Helm's words: an install that adopts objects
// updates, as Helm does, so it names a new object's creation (Helm v3.22.0's
// install --replace over a failed install's objects said so on the dev
// cluster).
func TestApplyFailureWords(t *testing.T) {
	bad := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "r-Broken"}
	kept := ports.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "r-config"}
	const msg = `ConfigMap "r-Broken" is invalid`
	plans := map[string]*plan.Plan{
		"fresh install": {Operation: plan.OpInstall, Stages: []plan.Stage{{Steps: []plan.Step{
			{Ref: bad, Action: plan.ActionCreate, Desired: ports.Object{}}}}}},
		"adopting install": {Operation: plan.OpInstall, Stages: []plan.Stage{{Steps: []plan.Step{
			{Ref: kept, Action: plan.ActionAdopt, Desired: ports.Object{}},
			{Ref: bad, Action: plan.ActionCreate, Desired: ports.Object{}}}}}},
		"upgrade of an object": {Operation: plan.OpUpgrade, Stages: []plan.Stage{{Steps: []plan.Step{
			{Ref: bad, Action: plan.ActionUpdate, Desired: ports.Object{}}}}}},
	}
	tests := map[string]struct {
		plan  string
		d     dialect.Dialect
		words string
	}{
		"fresh install, Helm 3":        {"fresh install", dialect.Helm3, "1 error occurred:\n\t* " + msg + "\n\n"},
		"fresh install, Helm 4":        {"fresh install", dialect.Helm4, "server-side apply failed for object ns/r-Broken /v1, Kind=ConfigMap: " + msg},
		"adopting install, Helm 3":     {"adopting install", dialect.Helm3, "failed to create resource: " + msg},
		"adopting install, Helm 4":     {"adopting install", dialect.Helm4, "failed to create resource: server-side apply failed for object ns/r-Broken /v1, Kind=ConfigMap: " + msg},
		"upgrade of an object, Helm 3": {"upgrade of an object", dialect.Helm3, `cannot patch "r-Broken" with kind ConfigMap: ` + msg},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := applyFailure(tc.d, plans[tc.plan], &ports.ApplyError{Ref: bad, Err: errors.New(msg)})
			if got := err.Error(); got != tc.words {
				t.Errorf("%q, want %q", got, tc.words)
			}
		})
	}
}
