package cluster

import "testing"

func TestLastLines(t *testing.T) {
	tests := map[string]struct {
		in   string
		n    int
		want string
	}{
		"empty":           {in: "", n: 3, want: ""},
		"fewer than n":    {in: "a\nb\n", n: 3, want: "a\nb\n"},
		"more than n":     {in: "a\nb\nc\nd\n", n: 2, want: "c\nd\n"},
		"no final break":  {in: "a\nb\nc", n: 2, want: "b\nc\n"},
		"trailing breaks": {in: "a\nb\n\n\n", n: 1, want: "b\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := lastLines([]byte(tc.in), tc.n); got != tc.want {
				t.Errorf("lastLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}
