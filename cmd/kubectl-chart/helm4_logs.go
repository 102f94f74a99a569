package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// logHelm4Failure logs on errOut what Helm 4's install logs, before its
// "Error: ..." line, when it fails the way err says.
func logHelm4Failure(errOut io.Writer, err error) {
	var nameCheck *releasename.CheckError
	var hideSecret *render.HideSecretError
	switch {
	case errors.As(err, &nameCheck):
		helm4Logger(errOut, false).Error("release name check failed", "error", nameCheck.Err.Error())
	case errors.As(err, &hideSecret) && !hideSecret.Helm3:
		helm4Logger(errOut, false).Error(hideSecret.Error())
	}
}

// logHelm4UpgradeFailure logs, as Helm 4 does, an upgrade of release name
// that failed after its revision was recorded.
func logHelm4UpgradeFailure(errOut io.Writer, name string, err error) {
	if cause, ok := action.FailureCause(err); ok {
		helm4Logger(errOut, false).Warn("upgrade failed", "name", name, "error", cause.Error())
	}
}

// logHelm4RollbackFailure logs, as Helm 4 does, a rollback of release name
// whose objects the API server refused.
func logHelm4RollbackFailure(errOut io.Writer, name string, err error) {
	var ae *ports.ApplyError
	if cause, ok := action.FailureCause(err); ok && errors.As(cause, &ae) {
		helm4Logger(errOut, false).Warn(fmt.Sprintf("Rollback %q failed: %s", name, cause))
	}
}
