package action

import (
	"slices"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Field managers whose fields an apply takes over.
const (
	// helmFieldManager is the manager of Helm's writes (Helm names it after
	// its program); its fields are taken over without --force-conflicts so
	// that releases move between the tools.
	helmFieldManager = "helm"
	// previousFieldManager is the manager kubectl-chart applied as before it
	// applied as Helm's: objects it wrote then are taken over as Helm's are.
	previousFieldManager = "kubectl-chart"
)

// takeOverFrom are the field managers whose fields an apply as manager
// takes over without --force-conflicts: Helm's (its client-side updates,
// Helm 4's applies), our earlier one's, and manager's own updates (the
// creates of InstallCRDs), whatever manager --field-manager chose.
func takeOverFrom(manager string) []string {
	out := []string{helmFieldManager, previousFieldManager}
	if m := ports.FieldManagerOr(manager); !slices.Contains(out, m) {
		out = append(out, m)
	}
	return out
}

// heldByPrevious reports whether an apply as manager takes fields of live
// over (takeOverFrom): written with an update, or applied under another name.
func heldByPrevious(live ports.Object, manager string) bool {
	manager = ports.FieldManagerOr(manager)
	from := takeOverFrom(manager)
	meta, _ := live["metadata"].(map[string]any)
	entries, _ := meta["managedFields"].([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		name, _ := m["manager"].(string)
		if sub, _ := m["subresource"].(string); sub != "" || !slices.Contains(from, name) {
			continue
		}
		if m["operation"] == "Update" || name != manager {
			return true
		}
	}
	return false
}
