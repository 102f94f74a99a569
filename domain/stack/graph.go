package stack

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCycle is a stack whose needs form a cycle.
var ErrCycle = errors.New("needs form a cycle")

// CycleError names the releases of a cycle, the first one again at the end.
type CycleError struct {
	Cycle []ID
}

func (e *CycleError) Error() string {
	names := make([]string, len(e.Cycle))
	for i, id := range e.Cycle {
		names[i] = id.String()
	}
	return fmt.Sprintf("%s: %s", ErrCycle, strings.Join(names, " -> "))
}

// Is makes errors.Is(err, ErrCycle) true.
func (e *CycleError) Is(target error) bool { return target == ErrCycle }

// Waves orders the releases by their needs: each wave holds the releases
// whose needs are all in earlier waves, in file order. A need naming a
// release the stack does not hold (left out by a selector, as helmfile
// without --include-needs) orders nothing.
func Waves(releases []Release) ([][]ID, error) {
	index := make(map[ID]int, len(releases))
	for i, r := range releases {
		index[r.ID] = i
	}
	if err := findCycle(releases, index); err != nil {
		return nil, err
	}
	wave := make([]int, len(releases))
	var depth func(i int) int
	depth = func(i int) int {
		if wave[i] > 0 {
			return wave[i]
		}
		d := 1
		for _, n := range releases[i].Needs {
			if j, ok := index[n]; ok {
				d = max(d, depth(j)+1)
			}
		}
		wave[i] = d
		return d
	}
	var waves [][]ID
	for i, r := range releases {
		d := depth(i)
		for len(waves) < d {
			waves = append(waves, nil)
		}
		waves[d-1] = append(waves[d-1], r.ID)
	}
	return waves, nil
}

// findCycle reports the first cycle of needs met in file order.
func findCycle(releases []Release, index map[ID]int) error {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]int, len(releases))
	var path []int
	var visit func(i int) error
	visit = func(i int) error {
		state[i] = onPath
		path = append(path, i)
		for _, n := range releases[i].Needs {
			j, ok := index[n]
			if !ok {
				continue
			}
			switch state[j] {
			case onPath:
				var cycle []ID
				for k := len(path) - 1; k >= 0; k-- {
					if path[k] == j {
						for _, p := range path[k:] {
							cycle = append(cycle, releases[p].ID)
						}
						break
					}
				}
				return &CycleError{Cycle: append(cycle, releases[j].ID)}
			case unseen:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		return nil
	}
	for i := range releases {
		if state[i] == unseen {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}
