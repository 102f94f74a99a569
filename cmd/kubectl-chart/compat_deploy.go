package main

import (
	"context"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// The dialect a deploy renders in when neither --compat nor $KUBECTL_CHART_COMPAT
// names one. These methods are the spec of each command (they take the place of
// deployFlags' for install, upgrade and their diff previews).

// spec is install's release spec: a new release renders as Helm 4.
func (o *InstallOptions) spec(ctx context.Context, name, chartRef, namespace string, streams genericiooptions.IOStreams) (action.ReleaseSpec, error) {
	return o.specFor(ctx, o.adapters, dialect.Helm4, name, chartRef, namespace, streams)
}

// spec is upgrade's release spec. An upgrade renders in the dialect of the
// release's latest revision (release.Dialect: Helm 4 marks its revisions with
// an apply method, Helm 3 does not), so that switching between Helm and
// kubectl-chart changes nothing the chart did not; a new release
// (upgrade --install) renders as Helm 4, as install does.
func (o *UpgradeOptions) spec(ctx context.Context, name, chartRef, namespace string, streams genericiooptions.IOStreams) (action.ReleaseSpec, error) {
	def, err := o.releaseDialect(ctx, name, namespace)
	if err != nil {
		return action.ReleaseSpec{}, err
	}
	return o.specFor(ctx, o.adapters, def, name, chartRef, namespace, streams)
}

// releaseDialect is the dialect of the release's latest revision, read only
// when neither --compat nor the environment names one. A release that does not
// exist, or whose history cannot be read here, gets Helm 4's: the upgrade
// itself then installs it or reports why the history is unreadable.
func (o *UpgradeOptions) releaseDialect(ctx context.Context, name, namespace string) (dialect.Dialect, error) {
	chosen, err := o.compat.Dialect()
	if err != nil || chosen != "" {
		return chosen, err
	}
	if store, err := o.adapters.releaseStore(); err == nil {
		if h, err := store.History(ctx, namespace, name); err == nil && len(h) > 0 {
			return h.Latest().Dialect(), nil
		}
	}
	return dialect.Helm4, nil
}
