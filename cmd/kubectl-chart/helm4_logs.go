package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
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

// logHelm4Baselines logs, as Helm 4's update of a release's objects does,
// each object it wrote over as it was, the revision replaced not having it.
func logHelm4Baselines(errOut io.Writer, p *eventPrinter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.baselines {
		helm4Logger(errOut, false).Warn("resource exists on cluster but not in original release, using cluster state as baseline",
			"namespace", r.Namespace, "name", r.Name, "kind", r.Kind)
	}
}

// logHelm4ChangeFailures logs, as Helm 4 does, the upgrades and rollbacks of
// release name that err tells failed after their revisions were recorded: a
// failed upgrade always, a rollback when updating its objects failed.
func logHelm4ChangeFailures(errOut io.Writer, name string, err error) {
	for _, f := range action.Failures(err) {
		switch {
		case f.Operation == plan.OpUpgrade:
			helm4Logger(errOut, false).Warn("upgrade failed", "name", name, "error", f.Cause.Error())
		case f.Operation == plan.OpRollback && f.Updating:
			helm4Logger(errOut, false).Warn(fmt.Sprintf("Rollback %q failed: %s", name, f.Cause))
		}
	}
}
