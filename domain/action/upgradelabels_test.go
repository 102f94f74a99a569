package action

import (
	"maps"
	"testing"
)

// An upgrade keeps the latest revision's labels, as Helm's, with those given
// over them and "null" removing one.
func TestUpgradeLabels(t *testing.T) {
	tests := map[string]struct {
		latest, given, want map[string]string
	}{
		"kept":     {map[string]string{"team": "a"}, nil, map[string]string{"team": "a"}},
		"replaced": {map[string]string{"team": "a"}, map[string]string{"team": "b", "tier": "1"}, map[string]string{"team": "b", "tier": "1"}},
		"removed":  {map[string]string{"team": "a", "tier": "1"}, map[string]string{"team": "null"}, map[string]string{"tier": "1"}},
		"none":     {nil, nil, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := upgradeLabels(tc.latest, tc.given); !maps.Equal(got, tc.want) {
				t.Errorf("labels = %v, want %v", got, tc.want)
			}
		})
	}
}
