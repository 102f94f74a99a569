package release_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

func TestReleaseDialect(t *testing.T) {
	tests := map[string]struct {
		rel  *release.Release
		want dialect.Dialect
	}{
		"no release":                      {nil, dialect.Helm3},
		"helm 3 record (no apply method)": {&release.Release{}, dialect.Helm3},
		"helm 4 server-side apply":        {&release.Release{ApplyMethod: release.ApplyServerSide}, dialect.Helm4},
		"helm 4 client-side apply":        {&release.Release{ApplyMethod: release.ApplyClientSide}, dialect.Helm4},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tt.rel.Dialect(); got != tt.want {
				t.Errorf("Dialect() = %q, want %q", got, tt.want)
			}
		})
	}
}
