package action

import (
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/render"
)

// checkHideSecrets refuses HideSecrets without a dry run.
func checkHideSecrets(s ReleaseSpec) error {
	if s.HideSecrets && s.DryRun == DryRunNone {
		return &render.HideSecretError{Helm3: s.Dialect == dialect.Helm3}
	}
	return nil
}

// redacted is a dry run's result with its Secrets hidden when HideSecrets
// asks. Helm 3 hid them before its post-renderer ran, whose output it keeps
// as it is.
func redacted(s ReleaseSpec, rel *release.Release) *release.Release {
	helm3PostRendered := s.Dialect == dialect.Helm3 && s.PostRender != nil
	if s.HideSecrets && !helm3PostRendered {
		rel.Manifest = render.HideSecrets(rel.Manifest)
	}
	return rel
}
