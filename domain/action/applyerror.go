package action

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// applyFailure is what plan pl's writes the API server refused say, in the
// words of the dialect's Helm: Helm 4 names each object it applied
// server-side, Helm 3 the patch of an object that existed, each the creation
// of one that did not in an upgrade, a rollback or an install that adopts
// objects (their update, which lists refused updates joined by " && ");
// Helm 3's install lists what it could not create, Helm 4's one a line. Any
// other error is as it is.
func applyFailure(d dialect.Dialect, pl *plan.Plan, err error) error {
	errs := refusalsOf(err)
	if !slices.ContainsFunc(errs, func(err error) bool { var ae *ports.ApplyError; return errors.As(err, &ae) }) {
		return err
	}
	// Helm updates (rather than creates) when the install adopts objects.
	updating := pl.Operation != plan.OpInstall || adopts(pl)
	words := make([]string, len(errs))
	for i, err := range errs {
		words[i] = refusalWords(d, pl, updating, err)
	}
	switch {
	case updating:
		return &wordedError{words: strings.Join(words, " && "), err: err}
	case d.IsHelm4():
		return &wordedError{words: strings.Join(words, "\n"), err: err}
	}
	return &wordedError{words: helm3List(words), err: err}
}

// refusalWords is one refused write of plan pl as the dialect's Helm words it
// (see applyFailure).
func refusalWords(d dialect.Dialect, pl *plan.Plan, updating bool, err error) string {
	var ae *ports.ApplyError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	created := updating && stepAction(pl, ae.Ref) == plan.ActionCreate
	msg := ae.Err.Error()
	switch {
	case d.IsHelm4() && created:
		return "failed to create resource: " + helm4ApplyFailure(ae.Ref, msg)
	case d.IsHelm4():
		return helm4ApplyFailure(ae.Ref, msg)
	case !updating:
		return msg
	case created:
		return "failed to create resource: " + msg
	case pl.Settings.ForceReplace && pl.Settings.HelmForceReplace:
		// Helm 3's --force replaces each object with an update.
		return "failed to replace object: " + msg
	}
	return fmt.Sprintf("cannot patch %q with kind %s: %s", ae.Ref.Name, ae.Ref.Kind, msg)
}

// refusals are the writes the API server refused, in manifest order.
type refusals []error

func (r refusals) Error() string { return errors.Join(r...).Error() }

func (r refusals) Unwrap() []error { return r }

// refusalsOf are the refusals err holds, or err alone.
func refusalsOf(err error) []error {
	var r refusals
	if errors.As(err, &r) {
		return r
	}
	return []error{err}
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

// helm3List is Helm 3's list of errors (hashicorp's multierror), blank line
// included.
func helm3List(points []string) string {
	if len(points) == 1 {
		return fmt.Sprintf("1 error occurred:\n\t* %s\n\n", points[0])
	}
	return fmt.Sprintf("%d errors occurred:\n\t* %s\n\n", len(points), strings.Join(points, "\n\t* "))
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
