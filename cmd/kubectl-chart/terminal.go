package main

import (
	"strings"
	"unicode/utf8"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
)

// humanText is untrusted text (a value's key, a release record, an index's
// warning) made safe for a terminal: each of its lines sanitized as chart
// metadata is (chart.Sanitize: other spacing becomes a space, unprintable runes
// such as ESC, BEL and the C1 controls are dropped), so nothing it holds can
// move the cursor, rewrite a line or retitle the window.
func humanText(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = chart.Sanitize(l)
	}
	return strings.Join(lines, "\n")
}

// unsafeRune reports a rune humanText changes. A byte that is no UTF-8 (0x9b
// alone is CSI to a terminal not in UTF-8) becomes U+FFFD.
func unsafeRune(r rune) bool {
	return r == utf8.RuneError || r != ' ' && r != '\n' && chart.Sanitize(string(r)) != string(r)
}
