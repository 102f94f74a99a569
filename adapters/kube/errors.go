package kube

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// applyError wraps the server's refusal of an apply of ref: field-manager
// conflicts as a *ports.ConflictError (with the --force-conflicts hint unless
// the apply was forced), any other refusal as a *ports.ApplyError (invalid
// changes also ports.ErrInvalid), all keeping the server's message.
func applyError(ref ports.ObjectRef, err error, forced bool) error {
	if ce := conflictError(ref, err); ce != nil {
		if forced {
			return fmt.Errorf("apply %s: %w", ref, ce)
		}
		return fmt.Errorf("apply %s: %w (use --force-conflicts to take these fields over)", ref, ce)
	}
	if apierrors.IsInvalid(err) {
		return &ports.ApplyError{Ref: ref, Err: markedError{err: err, mark: ports.ErrInvalid}}
	}
	return &ports.ApplyError{Ref: ref, Err: err}
}

// createError wraps the server's refusal of a create of ref as a
// *ports.CreateError, an object that exists also ports.ErrAlreadyExists and
// an invalid one ports.ErrInvalid, keeping the server's message.
func createError(ref ports.ObjectRef, err error) error {
	switch {
	case apierrors.IsAlreadyExists(err):
		err = markedError{err: err, mark: ports.ErrAlreadyExists}
	case apierrors.IsInvalid(err):
		err = markedError{err: err, mark: ports.ErrInvalid}
	}
	return &ports.CreateError{Ref: ref, Err: err}
}

// conflictError reads the field-manager conflicts of a refused server-side
// apply of ref from the API status causes; nil when err carries none.
func conflictError(ref ports.ObjectRef, err error) *ports.ConflictError {
	var st apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &st) || st.Status().Details == nil {
		return nil
	}
	var conflicts []ports.FieldConflict
	for _, cause := range st.Status().Details.Causes {
		if cause.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		// A message of an unknown shape leaves the manager empty, which no
		// take-over list names: the conflict is then reported, never forced.
		manager, _ := conflictManager(cause.Message)
		conflicts = append(conflicts, ports.FieldConflict{Manager: manager, Field: cause.Field})
	}
	if len(conflicts) == 0 {
		return nil
	}
	return &ports.ConflictError{Ref: ref, Conflicts: conflicts, Err: err}
}

// conflictManager reads the field manager out of the message of one status
// cause of type metav1.CauseTypeFieldManagerConflict, the only place the
// manager appears. The API server writes that message as "conflict with "
// followed by the manager as a Go-quoted string, then optionally
// ` with subresource "..."`, ` using <apiVersion>` and ` at <time>` (see
// NewConflictError in k8s.io/apimachinery/pkg/util/managedfields/internal).
// It reports false for a message of any other shape.
func conflictManager(message string) (string, bool) {
	rest, ok := strings.CutPrefix(message, "conflict with ")
	if !ok {
		return "", false
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil || !strings.HasPrefix(quoted, `"`) {
		return "", false
	}
	if after := rest[len(quoted):]; after != "" && !strings.HasPrefix(after, " ") {
		return "", false
	}
	manager, err := strconv.Unquote(quoted)
	if err != nil {
		return "", false
	}
	return manager, true
}

// takesOver reports whether every conflict of ce is with one of the managers
// in from, so that the apply may force without --force-conflicts.
func takesOver(ce *ports.ConflictError, from []string) bool {
	managers := ce.Managers()
	if len(managers) == 0 {
		return false
	}
	for _, m := range managers {
		if !slices.Contains(from, m) {
			return false
		}
	}
	return true
}

// markedError is a server's refusal that reads as the server's message and
// is both that error and the port's sentinel for it (ports.ErrInvalid for an
// invalid change, HTTP 422).
type markedError struct{ err, mark error }

func (e markedError) Error() string   { return e.err.Error() }
func (e markedError) Unwrap() []error { return []error{e.err, e.mark} }
