package redact

import "strings"

// Terminal removes the control characters of s that a terminal would act on (escape
// sequences, carriage returns, backspaces, C1 controls), keeping newlines and tabs:
// for messages made of untrusted text, such as an index.yaml's descriptions.
func Terminal(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !isControl(r) {
			return r
		}
		return -1
	}, s)
}

// isControl reports C0 and C1 control characters and DEL.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
}
