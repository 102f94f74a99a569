package action

import (
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// --filter selects as Helm's does, and the hooks are ordered as Helm records
// them: skipped by exclusion, then by inclusion, then those that run.
func TestTestFilter(t *testing.T) {
	hooks := []*release.Hook{{Name: "setup"}, {Name: "a"}, {Name: "b"}, {Name: "c"}}
	names := func(hs []*release.Hook) string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Name)
		}
		return strings.Join(out, ",")
	}
	tests := map[string]struct {
		filter       []string
		skipped, run string
	}{
		"none":                 {nil, "", "setup,a,b,c"},
		"include":              {[]string{"name=b"}, "setup,a,c", "b"},
		"exclude":              {[]string{"!name=b"}, "b", "setup,a,c"},
		"exclude with a blank": {[]string{"! name=b"}, "b", "setup,a,c"},
		"both":                 {[]string{"name=a", "name=b", "!name=a"}, "a,setup,c", "b"},
		"other attributes":     {[]string{"kind=Pod", "!!name=a", "!  name=a"}, "", "setup,a,b,c"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			skipped, run := parseTestFilter(tc.filter).split(hooks)
			if names(skipped) != tc.skipped || names(run) != tc.run {
				t.Errorf("skipped %q, run %q; want %q, %q", names(skipped), names(run), tc.skipped, tc.run)
			}
		})
	}
}
