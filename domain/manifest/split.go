// Package manifest splits rendered templates into Kubernetes documents, separates
// hooks from resources and orders both the way Helm installs them.
package manifest

import (
	"strings"
	"unicode"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
)

// SplitFor cuts a multi-document YAML text into documents by the dialect's rules:
// Split for Helm 3, SplitHelm4 for Helm 4.
func SplitFor(d dialect.Dialect, text string) []string {
	if d.IsHelm4() {
		return SplitHelm4(text)
	}
	return Split(text)
}

// SplitHelm4 cuts a multi-document YAML text at "---" separators as Helm 4 does:
// a separator is "---" at the start of a line with the spaces and tabs after it;
// documents lose their leading whitespace but keep their trailing whitespace (so
// the final line breaks of a "|+" block scalar survive), and documents that are
// only whitespace are dropped. Helm matches separators with an expression; the
// scanner gives the same result (see the differential test).
func SplitHelm4(text string) []string {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	var docs []string
	add := func(d string) {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, strings.TrimLeftFunc(d, unicode.IsSpace))
		}
	}
	docStart := 0
	// lineStart walks the starts of lines: 0, then each position after a '\n'. A
	// match ends after "---" and blanks, never at a line start, so the next
	// candidate is the next line.
	for lineStart := 0; lineStart < len(text); {
		if strings.HasPrefix(text[lineStart:], "---") {
			end := lineStart + 3
			for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
				end++
			}
			add(text[docStart:lineStart])
			docStart = end
		}
		nl := strings.IndexByte(text[lineStart:], '\n')
		if nl < 0 {
			break
		}
		lineStart += nl + 1
	}
	add(text[docStart:])
	return docs
}

// Split cuts a multi-document YAML text at "---" separators, trims each document
// and drops empty ones.
//
// A separator is Helm's: "---" at the start of the text or of a line, together
// with the whitespace run before that line break and all whitespace after the
// dashes (so "----" leaves "-" behind, and a "---" whose line break was taken by
// the previous separator is content). Helm matches it with a regular expression;
// this scanner gives the same result (see the differential test) without
// backtracking over large documents.
func Split(text string) []string {
	text = strings.TrimSpace(text)
	var docs []string
	add := func(d string) {
		if d = strings.TrimSpace(d); d != "" {
			docs = append(docs, d)
		}
	}
	docStart, searchFrom := 0, 0
	for searchFrom <= len(text) {
		start, end, ok := nextSeparator(text, searchFrom)
		if !ok {
			break
		}
		add(text[docStart:start])
		docStart, searchFrom = end, end
	}
	add(text[docStart:])
	return docs
}

// nextSeparator finds the first separator match beginning at or after from and
// returns its bounds.
func nextSeparator(text string, from int) (start, end int, ok bool) {
	if from == 0 && strings.HasPrefix(text, "---") {
		return 0, skipSpace(text, 3), true
	}
	j := strings.Index(text[from:], "\n---")
	if j < 0 {
		return 0, 0, false
	}
	nl := from + j
	// The match starts where the whitespace run ending in this line break starts,
	// but never before the end of the previous match.
	s := nl
	for s > from && isSpace(text[s-1]) {
		s--
	}
	return s, skipSpace(text, nl+4), true
}

func skipSpace(text string, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

// isSpace is RE2's \s: space, \t, \n, \v is not included, \f, \r.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
