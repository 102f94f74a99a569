package action

import (
	"slices"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Field managers whose fields an apply takes over.
const (
	// helmFieldManager is the manager of Helm's writes to objects (v4.3.1
	// and v3.22.0, however their program is named); its fields are taken
	// over without --force-conflicts so that releases move between the tools.
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

// takeOverUnchanged applies again the objects a change would leave alone
// whose fields another of the release's managers applied (our earlier
// manager; Helm's when --field-manager names another): left to that name,
// they would conflict with the next apply that changes them, Helm 4's
// included. Such steps carry a note, so that no dry run turns them back into
// no-ops.
func takeOverUnchanged(steps []plan.Step, fieldManager string) []plan.Step {
	for i, s := range steps {
		if s.Action != plan.ActionNoOp || s.Live == nil || s.Note != unchangedNote {
			continue
		}
		if others := otherAppliers(s.Live, fieldManager); len(others) > 0 {
			steps[i].Action, steps[i].Note = plan.ActionUpdate, "unchanged; its fields are taken over from "+strings.Join(others, ", ")
		}
	}
	return steps
}

// otherAppliers are the managers of takeOverFrom that applied fields of live
// under another name than manager, in the order of live's managedFields.
func otherAppliers(live ports.Object, manager string) []string {
	manager = ports.FieldManagerOr(manager)
	from := takeOverFrom(manager)
	var out []string
	for _, e := range managedEntries(live) {
		if e.operation == "Apply" && e.subresource == "" && e.name != manager && slices.Contains(from, e.name) && !slices.Contains(out, e.name) {
			out = append(out, e.name)
		}
	}
	return out
}

// managedEntry is what take-overs read of one managedFields entry.
type managedEntry struct{ name, operation, subresource string }

func managedEntries(live ports.Object) []managedEntry {
	meta, _ := live["metadata"].(map[string]any)
	entries, _ := meta["managedFields"].([]any)
	out := make([]managedEntry, 0, len(entries))
	for _, e := range entries {
		m, _ := e.(map[string]any)
		var me managedEntry
		me.name, _ = m["manager"].(string)
		me.operation, _ = m["operation"].(string)
		me.subresource, _ = m["subresource"].(string)
		out = append(out, me)
	}
	return out
}

// heldByPrevious reports whether an apply as manager takes fields of live
// over (takeOverFrom): written with an update, or applied under another name.
func heldByPrevious(live ports.Object, manager string) bool {
	manager = ports.FieldManagerOr(manager)
	from := takeOverFrom(manager)
	return slices.ContainsFunc(managedEntries(live), func(e managedEntry) bool {
		return e.subresource == "" && slices.Contains(from, e.name) && (e.operation == "Update" || e.name != manager)
	})
}
