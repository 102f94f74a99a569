// Package manifest splits rendered templates into Kubernetes documents, separates
// hooks from resources and orders both the way Helm installs them.
package manifest

import (
	"regexp"
	"strings"
)

var separator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// Split cuts a multi-document YAML text at "---" lines, trims each document and
// drops empty ones.
func Split(text string) []string {
	var docs []string
	for _, d := range separator.Split(strings.TrimSpace(text), -1) {
		if d == "" {
			continue
		}
		docs = append(docs, strings.TrimSpace(d))
	}
	return docs
}
