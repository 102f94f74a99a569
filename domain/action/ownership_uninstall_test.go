package action

import (
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Helm 4's uninstall deletes only what carries the release's ownership: the
// managed-by label and both release annotations.
func TestOwnedBy(t *testing.T) {
	rel := &release.Release{Name: "web", Namespace: "prod"}
	owned := map[string]any{
		"labels":      map[string]any{ManagedByLabel: ManagedByValue},
		"annotations": map[string]any{ReleaseNameAnnotation: "web", ReleaseNamespaceAnnotation: "prod"},
	}
	tests := map[string]struct {
		labels, annotations map[string]any
		want                bool
	}{
		"owned":             {owned["labels"].(map[string]any), owned["annotations"].(map[string]any), true},
		"another release":   {owned["labels"].(map[string]any), map[string]any{ReleaseNameAnnotation: "other", ReleaseNamespaceAnnotation: "prod"}, false},
		"another namespace": {owned["labels"].(map[string]any), map[string]any{ReleaseNameAnnotation: "web", ReleaseNamespaceAnnotation: "dev"}, false},
		"not Helm's":        {map[string]any{ManagedByLabel: "kustomize"}, owned["annotations"].(map[string]any), false},
		"no metadata":       {nil, nil, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			live := ports.Object{"metadata": map[string]any{"name": "x", "labels": tc.labels, "annotations": tc.annotations}}
			if got := ownedBy(live, rel); got != tc.want {
				t.Errorf("ownedBy = %v, want %v", got, tc.want)
			}
		})
	}
}
