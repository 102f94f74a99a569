package chartcheck_test

import (
	"errors"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/chartcheck"
	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

func TestDeployable(t *testing.T) {
	withDep := &chart.Chart{Metadata: &chart.Metadata{Name: "app", Dependencies: []*chart.Dependency{{Name: "db"}}}}
	tests := map[string]struct {
		d       dialect.Dialect
		ch      *chart.Chart
		wantErr string
	}{
		"an application":             {d: dialect.Helm4, ch: &chart.Chart{Metadata: &chart.Metadata{Name: "app", Type: "application"}}},
		"no metadata is not checked": {d: dialect.Helm4, ch: &chart.Chart{}},
		"a library chart": {d: dialect.Helm3, ch: &chart.Chart{Metadata: &chart.Metadata{Name: "lib", Type: "library"}},
			wantErr: "library charts are not installable"},
		"a missing dependency, Helm 3": {d: dialect.Helm3, ch: withDep,
			wantErr: "An error occurred while checking for chart dependencies. You may need to run `kubectl chart dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: db"},
		"a missing dependency, Helm 4": {d: dialect.Helm4, ch: withDep,
			wantErr: "an error occurred while checking for chart dependencies. You may need to run 'kubectl chart dependency build' to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: db"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := chartcheck.Deployable(tc.d, tc.ch)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("Deployable = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestSupportedAPIVersion(t *testing.T) {
	v3 := &chart.Chart{Metadata: &chart.Metadata{Name: "c", APIVersion: "v3"}}
	if err := chartcheck.SupportedAPIVersion(dialect.Helm4, v3); !errors.Is(err, chartcheck.ErrInvalidAPIVersion) {
		t.Errorf("Helm 4, apiVersion v3: %v, want ErrInvalidAPIVersion", err)
	}
	if err := chartcheck.SupportedAPIVersion(dialect.Helm3, v3); err != nil {
		t.Errorf("Helm 3, apiVersion v3: %v", err)
	}
}
