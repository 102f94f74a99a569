package wasm

import "testing"

func TestHostAllowed(t *testing.T) {
	tests := map[string]struct {
		allowed []string
		host    string
		want    bool
	}{
		"none listed":           {host: "example.com", want: false},
		"exact":                 {allowed: []string{"example.com"}, host: "example.com", want: true},
		"other host":            {allowed: []string{"example.com"}, host: "example.org", want: false},
		"star spans dots":       {allowed: []string{"*.com"}, host: "a.b.example.com", want: true},
		"star alone":            {allowed: []string{"*"}, host: "127.0.0.1", want: true},
		"question mark":         {allowed: []string{"host?.local"}, host: "host1.local", want: true},
		"class":                 {allowed: []string{"host[0-2].local"}, host: "host3.local", want: false},
		"alternatives":          {allowed: []string{"{a,b}.example.com"}, host: "b.example.com", want: true},
		"alternatives, neither": {allowed: []string{"{a,b}.example.com"}, host: "c.example.com", want: false},
		"alternatives of globs": {allowed: []string{"{*.io,localhost}"}, host: "x.io", want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := hostAllowed(tc.allowed, tc.host); got != tc.want {
				t.Errorf("hostAllowed(%q, %q) = %v, want %v", tc.allowed, tc.host, got, tc.want)
			}
		})
	}
}
