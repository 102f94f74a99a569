package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// applyFailure is an object of plan pl the API server refused, in the words
// of the dialect's Helm: Helm 4 names the object it applied server-side,
// Helm 3 the patch of an object that existed, each the creation of one that
// did not in an upgrade or rollback; Helm 3's install lists what it could
// not create. Any other error is as it is.
func applyFailure(d dialect.Dialect, pl *plan.Plan, err error) error {
	var ae *ports.ApplyError
	if !errors.As(err, &ae) {
		return err
	}
	created := pl.Operation != plan.OpInstall && stepAction(pl, ae.Ref) == plan.ActionCreate
	msg := ae.Err.Error()
	var words string
	switch {
	case d.IsHelm4():
		words = fmt.Sprintf("server-side apply failed for object %s/%s %s: %s", ae.Ref.Namespace, ae.Ref.Name, gvkString(ae.Ref), msg)
		if created {
			words = "failed to create resource: " + words
		}
	case pl.Operation == plan.OpInstall:
		words = fmt.Sprintf("1 error occurred:\n\t* %s\n\n", msg)
	case created:
		words = "failed to create resource: " + msg
	case pl.Settings.ForceReplace && pl.Settings.HelmForceReplace:
		// Helm 3's --force replaces each object with an update.
		words = "failed to replace object: " + msg
	default:
		words = fmt.Sprintf("cannot patch %q with kind %s: %s", ae.Ref.Name, ae.Ref.Kind, msg)
	}
	return &wordedError{words: words, err: err}
}

// stepAction is what plan pl does to the object ref.
func stepAction(pl *plan.Plan, ref ports.ObjectRef) plan.Action {
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if s.Ref == ref {
				return s.Action
			}
		}
	}
	return ""
}

// gvkString names an object's kind as Kubernetes' GroupVersionKind prints
// itself ("apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap").
func gvkString(ref ports.ObjectRef) string {
	gv := ref.APIVersion
	if !strings.Contains(gv, "/") {
		gv = "/" + gv
	}
	return gv + ", Kind=" + ref.Kind
}
