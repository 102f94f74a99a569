package plugin

import (
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

type chartT = chart.Chart

func errNext(ref string) error { return fmt.Errorf("next source: %s", ref) }
