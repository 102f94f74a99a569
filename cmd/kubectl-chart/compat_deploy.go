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
	return o.specFor(ctx, dialect.Helm4, name, chartRef, namespace, streams)
}

// spec is upgrade's release spec. An upgrade renders in the dialect of the
// release's latest revision; until release records carry it, that is Helm 3's,
// the dialect every existing release was rendered in.
func (o *UpgradeOptions) spec(ctx context.Context, name, chartRef, namespace string, streams genericiooptions.IOStreams) (action.ReleaseSpec, error) {
	return o.specFor(ctx, dialect.Helm3, name, chartRef, namespace, streams)
}
