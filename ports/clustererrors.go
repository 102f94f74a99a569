package ports

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is a change the API server refuses as invalid (HTTP 422), such as
// a change of an immutable field; --force-replace branches on it.
var ErrInvalid = errors.New("object is invalid")

// ErrAlreadyExists is a create of an object that exists.
var ErrAlreadyExists = errors.New("object already exists")

// CreateError is a create of Ref that the API server refused; Err is the
// server's error.
type CreateError struct {
	Ref ObjectRef
	Err error
}

func (e *CreateError) Error() string { return fmt.Sprintf("create %s: %v", e.Ref, e.Err) }

func (e *CreateError) Unwrap() error { return e.Err }

// ApplyError is an apply of Ref that the API server refused for another
// reason than field-manager conflicts; Err is the server's error.
type ApplyError struct {
	Ref ObjectRef
	Err error
}

func (e *ApplyError) Error() string { return fmt.Sprintf("apply %s: %v", e.Ref, e.Err) }

func (e *ApplyError) Unwrap() error { return e.Err }

// FieldConflict is one field that another field manager owns.
type FieldConflict struct {
	// Manager is the field manager that owns the field ("helm", "kubectl-edit" ...).
	Manager string
	// Field is the field's path as the API server names it (".spec.replicas").
	Field string
}

// ConflictError is a server-side apply refused because fields belong to other
// field managers. The adapter reads the conflicts from the API status causes,
// never from the error's text.
type ConflictError struct {
	Ref       ObjectRef
	Conflicts []FieldConflict
	// Err is the server's error, for its message.
	Err error
}

func (e *ConflictError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = fmt.Sprintf("conflict with %q: %s", c.Manager, c.Field)
	}
	return fmt.Sprintf("apply %s: %s", e.Ref, strings.Join(parts, "; "))
}

func (e *ConflictError) Unwrap() error { return e.Err }

// Managers are the distinct managers the conflicts are with, in order of appearance.
func (e *ConflictError) Managers() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range e.Conflicts {
		if !seen[c.Manager] {
			seen[c.Manager] = true
			out = append(out, c.Manager)
		}
	}
	return out
}
