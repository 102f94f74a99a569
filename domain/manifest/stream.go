package manifest

import (
	"fmt"
	"strings"
)

// SplitStream cuts a release manifest into documents as Helm does when it
// applies one (the Kubernetes YAML stream reader under its resource builder):
// a document ends before a line that starts with "---" and holds nothing
// else but spaces or a comment, and keeps every line before that one,
// trailing line breaks included. That is what makes a `|+` block scalar at
// the end of a document keep the line break the manifest puts after it —
// Split, Helm's splitter of rendered templates, trims it.
func SplitStream(text string) ([]string, error) {
	var docs []string
	start := 0
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			next = pos + end + 1
		}
		if line := text[pos:next]; strings.HasPrefix(line, "---") {
			if rest := strings.TrimSpace(line[3:]); rest != "" && rest[0] != '#' {
				return nil, fmt.Errorf("invalid Yaml document separator: %s", strings.TrimSpace(line))
			}
			if pos > start {
				docs = append(docs, text[start:pos])
			}
			start = next
		}
		pos = next
	}
	if start < len(text) {
		docs = append(docs, text[start:])
	}
	return docs, nil
}
