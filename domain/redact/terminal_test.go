package redact_test

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/redact"
)

func TestTerminal(t *testing.T) {
	tests := map[string]struct{ in, terminal string }{
		"escape sequence": {in: "ok\x1b]0;pwned\x07\x1b[2J", terminal: "ok]0;pwned[2J"},
		"carriage return": {in: "safe\rEVIL", terminal: "safeEVIL"},
		"C1 CSI":          {in: "a\u009b31mb", terminal: "a31mb"},
		"newline and tab": {in: "a\nb\tc", terminal: "a\nb\tc"},
		"unicode kept":    {in: "café ✓ 日本", terminal: "café ✓ 日本"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := redact.Terminal(tt.in); got != tt.terminal {
				t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.terminal)
			}
		})
	}
}
