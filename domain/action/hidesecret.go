package action

import (
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
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

// checkHideSecrets refuses HideSecrets without a dry run.
func (s ReleaseSpec) checkHideSecrets() error {
	if s.HideSecrets && s.DryRun == DryRunNone {
		return &HideSecretError{Helm3: s.Dialect == dialect.Helm3}
	}
	return nil
}

// redacted is a dry run's result with its Secrets hidden when HideSecrets
// asks. Helm 3 hid them before its post-renderer ran, whose output it keeps
// as it is.
func (s ReleaseSpec) redacted(rel *release.Release, err error) (*release.Release, error) {
	helm3PostRendered := s.Dialect == dialect.Helm3 && s.PostRender != nil
	if s.HideSecrets && rel != nil && !helm3PostRendered {
		rel.Manifest = HideSecrets(rel.Manifest)
	}
	return rel, err
}
