package ports

import (
	"context"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// ChartSource loads a chart by reference: a directory, an archive, and (through
// other adapters) repository and OCI references.
type ChartSource interface {
	LoadChart(ctx context.Context, ref string) (*chart.Chart, error)
}
