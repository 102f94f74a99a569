package release_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// A revision is written as its dialect's Helm writes it: Helm 4 leaves zero
// times out and keeps the chart's modification times; Helm 3 writes a zero
// time as "" and has no modification times.
func TestRecordByDialect(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	newRelease := func(apply release.ApplyMethod) *release.Release {
		return &release.Release{
			Name: "web", Version: 1, ApplyMethod: apply,
			Info: &release.Info{FirstDeployed: release.Time{Time: mod}, LastDeployed: release.Time{Time: mod}, Status: release.StatusDeployed},
			Chart: &chart.Chart{
				Metadata:  &chart.Metadata{APIVersion: "v2", Name: "web", Version: "0.1.0"},
				Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("x"), ModTime: mod}},
				ModTime:   mod,
			},
			Hooks: []*release.Hook{{Name: "pre", LastRun: release.HookExecution{}}},
		}
	}
	tests := map[string]struct {
		apply         release.ApplyMethod
		want, notWant []string
	}{
		"helm4": {
			apply:   release.ApplyServerSide,
			want:    []string{`"modtime":"2026-01-02T03:04:05Z"`, `"schemamodtime":"0001-01-01T00:00:00Z"`, `"last_run":{"phase":""}`},
			notWant: []string{`"deleted"`, `"started_at"`},
		},
		"helm3": {
			want:    []string{`"deleted":""`, `"started_at":""`},
			notWant: []string{`modtime`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(newRelease(tc.apply))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("record lacks %s:\n%s", w, b)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(string(b), w) {
					t.Errorf("record has %s:\n%s", w, b)
				}
			}
		})
	}
}
