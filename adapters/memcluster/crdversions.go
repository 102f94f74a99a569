package memcluster

import "fmt"

// CRD versions as the API server keeps them: status.storedVersions lists
// every version objects may be stored in; an update adds the new storage
// version to it, and may not drop a version still listed.

// crdVersionNames are the names of a CRD's spec.versions and its storage
// version.
func crdVersionNames(crd map[string]any) (names []string, storage string) {
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		names = append(names, name)
		if m["storage"] == true {
			storage = name
		}
	}
	return names, storage
}

func storedVersions(crd map[string]any) []any {
	status, _ := crd["status"].(map[string]any)
	stored, _ := status["storedVersions"].([]any)
	return stored
}

// validateCRDUpdate refuses an update dropping a stored version.
func validateCRDUpdate(name string, live, next map[string]any) error {
	names, _ := crdVersionNames(next)
	var problems []string
	for i, v := range storedVersions(live) {
		found := false
		for _, n := range names {
			found = found || n == v
		}
		if !found {
			problems = append(problems, fmt.Sprintf("status.storedVersions[%d]: Invalid value: %q: must appear in spec.versions", i, v))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return invalid("CustomResourceDefinition.apiextensions.k8s.io", name, problems)
}

// addStoredVersion adds next's storage version to the stored versions it
// keeps from live.
func addStoredVersion(live, next map[string]any) {
	_, storage := crdVersionNames(next)
	stored := storedVersions(live)
	for _, v := range stored {
		if v == storage {
			return
		}
	}
	status, _ := next["status"].(map[string]any)
	if status == nil || storage == "" {
		return
	}
	status["storedVersions"] = append(append([]any(nil), stored...), storage)
}
