package action

import (
	"errors"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// failedError is an operation that failed after its revision was recorded
// pending; the failure was then recorded (or recording it failed too).
type failedError struct {
	op plan.Operation
	// updating: the failure came while updating the objects.
	updating  bool
	err       error
	recordErr error
	// created are the objects the failed update created (updating only).
	created []ports.ObjectRef
}

func (f *failedError) Error() string { return errors.Join(f.err, f.recordErr).Error() }

func (f *failedError) Unwrap() []error { return []error{f.err, f.recordErr} }

// updateError is a failure while updating a revision's objects, between the
// pre hooks and the wait (Helm's KubeClient.Update): a rollback that fails
// there supersedes the revision it started from, and Helm 4 logs it.
type updateError struct {
	err error
	// created are the objects the update created before it failed, in the
	// order it created them (Helm's Result.Created).
	created []ports.ObjectRef
}

func (u *updateError) Error() string { return u.err.Error() }

func (u *updateError) Unwrap() error { return u.err }

// Failure is an upgrade or rollback that failed after its revision was
// recorded pending.
type Failure struct {
	Operation plan.Operation
	// Cause is why, as the revision's description says it.
	Cause error
	// Updating: it failed while updating the objects (not in a hook or the
	// wait).
	Updating bool
}

// Failures are the upgrades and rollbacks err tells failed after their
// revisions were recorded, in the order they ran: an atomic upgrade's
// failure, then its rollback's.
func Failures(err error) []Failure {
	var out []Failure
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *failedError:
			out = append(out, Failure{Operation: e.op, Cause: e.err, Updating: e.updating})
		case interface{ Unwrap() []error }:
			for _, u := range e.Unwrap() {
				walk(u)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}
