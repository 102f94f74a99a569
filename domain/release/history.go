package release

import "sort"

// History is the revisions of one release, in any order.
type History []*Release

// Sorted returns the revisions oldest first.
func (h History) Sorted() History {
	out := append(History(nil), h...)
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out
}

// Latest is the highest revision, nil for an empty history.
func (h History) Latest() *Release {
	var latest *Release
	for _, r := range h {
		if latest == nil || r.Version > latest.Version {
			latest = r
		}
	}
	return latest
}

// NextRevision is the number a new revision gets.
func (h History) NextRevision() int {
	if l := h.Latest(); l != nil {
		return l.Version + 1
	}
	return 1
}

// LastDeployed is the highest revision in status deployed, nil when none is.
func (h History) LastDeployed() *Release {
	var last *Release
	for _, r := range h {
		if r.Info != nil && r.Info.Status == StatusDeployed && (last == nil || r.Version > last.Version) {
			last = r
		}
	}
	return last
}

// Prune returns the revisions to delete so that at most max remain, oldest
// first, as Helm's storage prunes: the last deployed revision is never among
// them; max < 0 keeps all, max 0 all but the last deployed (--history-max 1
// makes room for the new revision with Prune(0)).
func (h History) Prune(max int) History {
	if max < 0 || len(h) <= max {
		return nil
	}
	var drop History
	deployed := h.LastDeployed()
	for _, r := range h.Sorted() {
		if len(h)-len(drop) == max {
			break
		}
		if deployed == nil || r.Version != deployed.Version {
			drop = append(drop, r)
		}
	}
	return drop
}
