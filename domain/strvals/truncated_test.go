package strvals

import (
	"encoding/json"
	"testing"
)

// An index cut off by the end of the input is an error in Helm 3 and the end
// of the input in Helm 4, which keeps what the line set before it (and the
// list a nested index was reading into). What each Helm makes of these lines
// was read off Helm v3.22.0 and v4.3.1 (test/difftest's regressions
// helm3/helm4-set-truncated-index replay them through the program).
func TestTruncatedIndex(t *testing.T) {
	tests := map[string]struct {
		line  string
		helm4 string
	}{
		"alone":                     {line: "a[", helm4: `{}`},
		"before a value":            {line: "a[=b", helm4: `{}`},
		"after a value":             {line: "c=d,a[", helm4: `{"c":"d"}`},
		"nested index":              {line: "a[0][1", helm4: `{"a":[]}`},
		"after an item of the list": {line: "a[0]=1,a[1", helm4: `{"a":[1]}`},
		"in a map in a list":        {line: "a[0].b[", helm4: `{"a":[]}`},
		"in a map":                  {line: "m.n=1,m.o[", helm4: `{"m":{"n":1}}`},
		"after a list":              {line: "l={1,2},a[", helm4: `{"l":[1,2]}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			helm3 := map[string]any{}
			if err := ParseInto(tc.line, helm3); err == nil || err.Error() != "error parsing index: EOF" {
				t.Errorf("Helm 3: error = %v, want error parsing index: EOF", err)
			}
			helm4 := map[string]any{}
			if err := ParseInto(tc.line, helm4, TruncatedIndexEnds()); err != nil {
				t.Fatalf("Helm 4: %v", err)
			}
			if got, _ := json.Marshal(helm4); string(got) != tc.helm4 {
				t.Errorf("Helm 4: %s, want %s", got, tc.helm4)
			}
		})
	}
	// Other errors stay errors in Helm 4.
	if err := ParseInto("a[x]=1", map[string]any{}, TruncatedIndexEnds()); err == nil {
		t.Error("a[x]=1 accepted")
	}
}
