package stackrun

import (
	"context"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// Targets hand the lifecycle of a kube context ("" is the current one): its
// cluster, release store and lock. A context that does not exist or cannot
// be reached is an error that names it.
type Targets interface {
	Lifecycle(ctx context.Context, kubeContext string) (*action.Lifecycle, error)
}

// Charts load a release's chart: a local path, repo/chart of the stack's
// repositories or oci://, at the release's version.
type Charts interface {
	LoadChart(ctx context.Context, r stack.Release) (*chart.Chart, error)
}
