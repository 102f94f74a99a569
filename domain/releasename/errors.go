package releasename

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// maxLen keeps release names short enough for the objects Helm derives from
// them (Secrets named sh.helm.release.v1.NAME.vN, label values).
const maxLen = 53

var valid = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// ErrInvalid is a release name that Kubernetes or Helm cannot use.
var ErrInvalid = fmt.Errorf("invalid release name, must match regex %s and the length must not be longer than %d", valid.String(), maxLen)

// Validate checks a release name as Helm does.
func Validate(name string) error {
	if name == "" {
		return errors.New("no name provided")
	}
	if len(name) > maxLen || !valid.MatchString(name) {
		return ErrInvalid
	}
	return nil
}

// RefusedError is a name refused in the words one of Helm's use cases has
// for it; Err is why.
type RefusedError struct {
	Words string
	Err   error
}

func (e *RefusedError) Error() string { return e.Words }

func (e *RefusedError) Unwrap() error { return e.Err }

// Helm's words for an invalid release name, by use case (%s: the name).
const (
	ReadWords      = "releaseContent: Release name is invalid: %s"
	HistoryWords   = "release name is invalid: %s"
	UpgradeWords   = "release name is invalid: %s"
	RollbackWords  = "prepareRollback: Release name is invalid: %s"
	UninstallWords = "uninstall: Release name is invalid: %s"
	TestWords      = "releaseTest: Release name is invalid: %s"
)

// Check validates a release name, refusing it in a use case's words.
func Check(name, words string) error {
	if err := Validate(name); err != nil {
		return &RefusedError{Words: fmt.Sprintf(words, name), Err: err}
	}
	return nil
}

// CheckUpgrade validates the name of a release to upgrade, refusing it in
// Helm's words.
func CheckUpgrade(name string) error { return Check(name, UpgradeWords) }

// ErrInUse is an install over a release that exists.
var ErrInUse = errors.New("cannot reuse a name that is still in use")

// CheckError is an install refused by Helm 4's release name check (an
// invalid name, or one in use), which says which check failed and logs Err.
type CheckError struct{ Err error }

func (e *CheckError) Error() string { return "release name check failed: " + e.Err.Error() }

func (e *CheckError) Unwrap() error { return e.Err }

// InstallRefusal is what an install says of a name the check refused: Helm 4
// names the check, Helm 3 spells the name in use its own way.
func InstallRefusal(d dialect.Dialect, err error) error {
	if d.IsHelm4() {
		return &CheckError{Err: err}
	}
	if errors.Is(err, ErrInUse) {
		return &RefusedError{Words: "cannot re-use a name that is still in use", Err: err}
	}
	return err
}
