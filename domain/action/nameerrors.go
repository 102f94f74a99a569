package action

import (
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// wordedError is err in the words one of Helm's use cases has for it.
type wordedError struct {
	words string
	err   error
}

func (e *wordedError) Error() string { return e.words }

func (e *wordedError) Unwrap() error { return e.err }

// Helm's words for an invalid release name, by use case (%s: the name).
const (
	readInvalidName      = "releaseContent: Release name is invalid: %s"
	historyInvalidName   = "release name is invalid: %s"
	upgradeInvalidName   = "release name is invalid: %s"
	rollbackInvalidName  = "prepareRollback: Release name is invalid: %s"
	uninstallInvalidName = "uninstall: Release name is invalid: %s"
	testInvalidName      = "releaseTest: Release name is invalid: %s"
)

// checkName validates a release name, refusing it in a use case's words.
func checkName(name, words string) error {
	if err := ValidateReleaseName(name); err != nil {
		return &wordedError{words: fmt.Sprintf(words, name), err: err}
	}
	return nil
}

// CheckUpgradeName validates the name of a release to upgrade, refusing it
// in Helm's words.
func CheckUpgradeName(name string) error { return checkName(name, upgradeInvalidName) }

// ErrNameInUse is an install over a release that exists.
var ErrNameInUse = errors.New("cannot reuse a name that is still in use")

// NameCheckError is an install refused by Helm 4's release name check (an
// invalid name, or one in use), which says which check failed and logs Err.
type NameCheckError struct{ Err error }

func (e *NameCheckError) Error() string { return "release name check failed: " + e.Err.Error() }

func (e *NameCheckError) Unwrap() error { return e.Err }

// nameCheck is what an install says of a name the check refused: Helm 4
// names the check, Helm 3 spells the name in use its own way.
func nameCheck(d dialect.Dialect, err error) error {
	if d.IsHelm4() {
		return &NameCheckError{Err: err}
	}
	if errors.Is(err, ErrNameInUse) {
		return &wordedError{words: "cannot re-use a name that is still in use", err: err}
	}
	return err
}
