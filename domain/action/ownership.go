package action

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// OwnershipError is an existing object that another release or tool owns.
type OwnershipError struct {
	Ref     ports.ObjectRef
	Release string
	Reasons []string
}

func (e *OwnershipError) Error() string {
	where := ""
	if e.Ref.Namespace != "" {
		where = fmt.Sprintf(" in namespace %q", e.Ref.Namespace)
	}
	return fmt.Sprintf("%s %q%s exists and cannot be imported into the current release: invalid ownership metadata; %s",
		e.Ref.Kind, e.Ref.Name, where, strings.Join(e.Reasons, "; "))
}

// checkOwnership refuses objects that exist and belong to something else.
func checkOwnership(objs []ports.Object, live liveObjects, r *release.Release) error {
	for _, o := range objs {
		got := live.get(o)
		if got == nil {
			continue
		}
		if reasons := ownershipProblems(got, r); len(reasons) > 0 {
			return &OwnershipError{Ref: ports.RefOf(o), Release: r.Name, Reasons: reasons}
		}
	}
	return nil
}

func ownershipProblems(live ports.Object, r *release.Release) []string {
	var out []string
	if v, ok := live.GetLabels()[ManagedByLabel]; !ok {
		out = append(out, fmt.Sprintf("label validation error: missing key %q: must be set to %q", ManagedByLabel, ManagedByValue))
	} else if v != ManagedByValue {
		out = append(out, fmt.Sprintf("label validation error: key %q must equal %q: current value is %q", ManagedByLabel, ManagedByValue, v))
	}
	ann := live.GetAnnotations()
	for _, a := range []struct{ key, want string }{{ReleaseNameAnnotation, r.Name}, {ReleaseNamespaceAnnotation, r.Namespace}} {
		if v, ok := ann[a.key]; !ok {
			out = append(out, fmt.Sprintf("annotation validation error: missing key %q: must be set to %q", a.key, a.want))
		} else if v != a.want {
			out = append(out, fmt.Sprintf("annotation validation error: key %q must equal %q: current value is %q", a.key, a.want, v))
		}
	}
	return out
}
