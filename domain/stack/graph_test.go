package stack

import (
	"errors"
	"fmt"
	"testing"
)

func TestWaves(t *testing.T) {
	a, b, c, d := ID{Namespace: "n", Name: "a"}, ID{Namespace: "n", Name: "b"}, ID{KubeContext: "east", Namespace: "n", Name: "c"}, ID{Namespace: "n", Name: "d"}
	tests := map[string]struct {
		releases []Release
		want     string
		err      string
	}{
		"independent releases are one wave": {
			releases: []Release{{ID: a}, {ID: b}},
			want:     "[[n/a n/b]]",
		},
		"needs across contexts order waves": {
			releases: []Release{{ID: a, Needs: []ID{b, c}}, {ID: b, Needs: []ID{c}}, {ID: c}, {ID: d}},
			want:     "[[east/n/c n/d] [n/b] [n/a]]",
		},
		"a need left out by a selector orders nothing": {
			releases: []Release{{ID: a, Needs: []ID{d}}},
			want:     "[[n/a]]",
		},
		"cycle": {
			releases: []Release{{ID: a, Needs: []ID{b}}, {ID: b, Needs: []ID{c}}, {ID: c, Needs: []ID{a}}},
			err:      "needs form a cycle: n/a -> n/b -> east/n/c -> n/a",
		},
		"self": {
			releases: []Release{{ID: a, Needs: []ID{a}}},
			err:      "needs form a cycle: n/a -> n/a",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Waves(tc.releases)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, ErrCycle) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("waves = %v, want %s", got, tc.want)
			}
		})
	}
}
