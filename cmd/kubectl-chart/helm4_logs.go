package main

import (
	"errors"
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
)

// logHelm4Failure logs on errOut what Helm 4 logs, before its "Error: ..."
// line, when a release operation fails the way err says.
func logHelm4Failure(errOut io.Writer, err error) {
	var nameCheck *action.NameCheckError
	if errors.As(err, &nameCheck) {
		helm4Logger(errOut, false).Error("release name check failed", "error", nameCheck.Err.Error())
	}
}
