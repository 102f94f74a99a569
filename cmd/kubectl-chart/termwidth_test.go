package main

import "testing"

func TestFitLine(t *testing.T) {
	tests := map[string]struct {
		line  string
		width int
		want  string
	}{
		"no limit":           {line: "a long line", width: 0, want: "a long line"},
		"fits":               {line: "short", width: 80, want: "short"},
		"one column spare":   {line: "abcd", width: 5, want: "abcd"},
		"would fill a row":   {line: "abcde", width: 5, want: "a..."},
		"narrow terminal":    {line: "abcdef", width: 2, want: "a..."},
		"runes, not bytes":   {line: "ééééé", width: 5, want: "é..."},
		"cut keeps a prefix": {line: "release web: upgrade", width: 12, want: "release ..."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := fitLine(tc.line, tc.width); got != tc.want {
				t.Errorf("fitLine(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
			}
		})
	}
}
