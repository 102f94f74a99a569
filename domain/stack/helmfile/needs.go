package helmfile

import (
	"fmt"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

// needID resolves one of helmfile's needs forms (name, namespace/name,
// context/namespace/name) against the needing release's own ID.
func needID(need string, self stack.ID) stack.ID {
	parts := strings.Split(need, "/")
	id := stack.ID{Name: parts[len(parts)-1], Namespace: self.Namespace, KubeContext: self.KubeContext}
	if len(parts) > 1 {
		id.Namespace = parts[len(parts)-2]
	}
	if len(parts) > 2 {
		id.KubeContext = strings.Join(parts[:len(parts)-2], "/")
	}
	return id
}

// checkDuplicates refuses two enabled releases with the same identity.
func checkDuplicates(rels []stack.Release, disabled map[declared]bool) error {
	seen := map[stack.ID]string{}
	for _, r := range rels {
		if disabled[declaredAt(r)] {
			continue
		}
		if first, ok := seen[r.ID]; ok {
			return fmt.Errorf("%s: duplicate release %q: already declared at %s", r.Source, r.ID, first)
		}
		seen[r.ID] = r.Source
	}
	return nil
}

// resolveAllNeeds refuses needs naming no release and cycles among needs.
func resolveAllNeeds(rels []stack.Release) error {
	index := map[stack.ID]int{}
	for i, r := range rels {
		index[r.ID] = i
	}
	for _, r := range rels {
		for _, n := range r.Needs {
			if _, ok := index[n]; !ok {
				return fmt.Errorf("%s: release %q needs %q, which is not a release of the stack", r.Source, r.ID, n)
			}
		}
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(rels))
	var path []stack.ID
	var visit func(i int) error
	visit = func(i int) error {
		state[i] = visiting
		path = append(path, rels[i].ID)
		for _, n := range rels[i].Needs {
			j := index[n]
			switch state[j] {
			case visiting:
				var names []string
				start := 0
				for k, id := range path {
					if id == n {
						start = k
					}
				}
				for _, id := range path[start:] {
					names = append(names, id.String())
				}
				names = append(names, n.String())
				return fmt.Errorf("%s: cycle in needs: %s", rels[i].Source, strings.Join(names, " -> "))
			case unvisited:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		return nil
	}
	for i := range rels {
		if state[i] == unvisited {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// setWaves gives each release its depth in needs (cycles are refused before).
func setWaves(rels []stack.Release) {
	index := map[stack.ID]int{}
	for i, r := range rels {
		index[r.ID] = i
	}
	depth := make([]int, len(rels))
	done := make([]bool, len(rels))
	var visit func(i int) int
	visit = func(i int) int {
		if done[i] {
			return depth[i]
		}
		done[i] = true
		for _, n := range rels[i].Needs {
			if j, ok := index[n]; ok {
				depth[i] = max(depth[i], visit(j)+1)
			}
		}
		return depth[i]
	}
	for i := range rels {
		rels[i].Wave = visit(i)
	}
}

// Waves groups releases by Wave, each wave in the order given (file order).
func Waves(rels []stack.Release) [][]stack.Release {
	var waves [][]stack.Release
	for _, r := range rels {
		for len(waves) <= r.Wave {
			waves = append(waves, nil)
		}
		waves[r.Wave] = append(waves[r.Wave], r)
	}
	return waves
}

// markUninstalledNeeds records, on each release to be installed, the needs
// on releases that are not (installed: false), and notes them for the
// release's group as helmfile warns of them when it works on that file.
func markUninstalledNeeds(rels []stack.Release) []stack.Note {
	uninstalled := map[stack.ID]bool{}
	for _, r := range rels {
		uninstalled[r.ID] = !r.Installed
	}
	var notes []stack.Note
	for i, r := range rels {
		if !r.Installed {
			continue
		}
		for _, n := range r.Needs {
			if uninstalled[n] {
				rels[i].NeedsUninstalled = append(rels[i].NeedsUninstalled, n)
				notes = append(notes, stack.Note{Group: r.Group, Text: UninstalledNeedWarning(r.ID.Name, n.Name)})
			}
		}
	}
	return notes
}

// UninstalledNeedWarning is helmfile's warning of a need on an uninstalled release.
func UninstalledNeedWarning(release, need string) string {
	return fmt.Sprintf("WARNING: release %[1]s needs %[2]s, but %[2]s is not installed due to installed: false. Either mark %[2]s as installed or remove %[2]s from %[1]s's needs", release, need)
}
