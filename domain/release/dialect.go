package release

import "github.com/kubectl-chart/kubectl-chart/domain/dialect"

// Dialect is the Helm release whose rules rendered the revision, as its
// record tells both Helms: Helm 4 records an apply method on every revision
// it writes and Helm 3 never does, so a revision with one was rendered as
// Helm 4 and one without as Helm 3. kubectl-chart keeps to the same mark
// (ApplyMethodFor), so an upgrade that follows the latest revision's dialect
// renders as the tool that wrote it did and changes nothing a user did not ask
// to change.
func (r *Release) Dialect() dialect.Dialect {
	if r != nil && r.ApplyMethod != "" {
		return dialect.Helm4
	}
	return dialect.Helm3
}
