package render

import (
	"strings"

	"sigs.k8s.io/yaml"
)

// HideSecrets replaces each Secret of a release manifest ("---\n# Source:
// PATH\nDOCUMENT\n" after another) by Helm's comment, as --hide-secret does on
// dry runs.
func HideSecrets(manifest string) string {
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
			b.WriteString(hiddenSecret + "\n")
			continue
		}
		b.WriteString(body)
	}
	return b.String()
}

// HideSecretError is --hide-secret without a dry run, in the dialect's words.
type HideSecretError struct{ Helm3 bool }

func (e *HideSecretError) Error() string {
	if e.Helm3 {
		return "Hiding Kubernetes secrets requires a dry-run mode"
	}
	return "hiding Kubernetes secrets requires a dry-run mode"
}
