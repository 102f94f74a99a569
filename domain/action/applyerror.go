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
// did not in an upgrade, a rollback or an install that adopts objects;
// Helm 3's install lists what it could not create. Any other error is as it is.
func applyFailure(d dialect.Dialect, pl *plan.Plan, err error) error {
	var ae *ports.ApplyError
	if !errors.As(err, &ae) {
		return err
	}
	// Helm updates (rather than creates) when the install adopts objects.
	updating := pl.Operation != plan.OpInstall || adopts(pl)
	created := updating && stepAction(pl, ae.Ref) == plan.ActionCreate
	msg := ae.Err.Error()
	var words string
	switch {
	case d.IsHelm4():
		words = helm4ApplyFailure(ae.Ref, msg)
		if created {
			words = "failed to create resource: " + words
		}
	case !updating:
		words = helm3ErrorList(msg)
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

// adopts reports whether plan pl takes over objects that exist.
func adopts(pl *plan.Plan) bool {
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if s.Desired != nil && s.Action != plan.ActionCreate && s.Action != plan.ActionDelete {
				return true
			}
		}
	}
	return false
}

// helm4ApplyFailure is Helm 4's refusal of its server-side apply of ref.
func helm4ApplyFailure(ref ports.ObjectRef, msg string) string {
	return fmt.Sprintf("server-side apply failed for object %s/%s %s: %s", ref.Namespace, ref.Name, gvkString(ref), msg)
}

// helm3ErrorList is Helm 3's list of one error (hashicorp's multierror).
func helm3ErrorList(msg string) string {
	return fmt.Sprintf("1 error occurred:\n\t* %s\n\n", msg)
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
