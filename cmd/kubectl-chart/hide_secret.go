package main

import (
	"strings"

	"sigs.k8s.io/yaml"
)

// hiddenSecret replaces a Secret's document with --hide-secret, in Helm's words.
const hiddenSecret = "# HIDDEN: The Secret output has been suppressed\n"

// hideSecrets replaces each Secret of a release manifest ("---\n# Source:
// PATH\nDOCUMENT\n" after another) by Helm's comment, as --hide-secret does on
// dry runs.
func hideSecrets(manifest string) string {
	const sep = "---\n# Source: "
	if !strings.HasPrefix(manifest, sep) {
		return manifest
	}
	var b strings.Builder
	for _, doc := range strings.Split(manifest, sep)[1:] {
		source, body, _ := strings.Cut(doc, "\n")
		b.WriteString(sep + source + "\n")
		var head struct {
			Kind string `json:"kind"`
		}
		if yaml.Unmarshal([]byte(body), &head) == nil && head.Kind == "Secret" {
			b.WriteString(hiddenSecret)
			continue
		}
		b.WriteString(body)
	}
	return b.String()
}
