package helmrecord

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Matcher decides from an object's namespace and storage labels alone whether a
// revision belongs in a listing, so that stores filter before decoding anything.
type Matcher struct {
	q        ports.ListQuery
	statuses map[release.Status]bool
	selector labels.Selector
}

// NewMatcher compiles a query; a malformed selector is an error.
func NewMatcher(q ports.ListQuery) (*Matcher, error) {
	m := &Matcher{q: q, selector: labels.Everything()}
	if q.Selector != "" {
		sel, err := labels.Parse(q.Selector)
		if err != nil {
			return nil, fmt.Errorf("parse selector %q: %w", q.Selector, err)
		}
		m.selector = sel
	}
	if len(q.Statuses) > 0 {
		m.statuses = map[release.Status]bool{}
		for _, s := range q.Statuses {
			m.statuses[s] = true
		}
	}
	return m, nil
}

// ServerSelector is the label selector a Kubernetes list can apply server-side:
// owner=helm, the release name when given, and the user's selector.
func (m *Matcher) ServerSelector() string {
	sel := labels.SelectorFromSet(labels.Set{LabelOwner: Owner})
	if m.q.Name != "" {
		sel = labels.SelectorFromSet(labels.Set{LabelOwner: Owner, LabelName: m.q.Name})
	}
	if m.q.LatestOnly {
		// The selector applies to the latest revisions, which the server cannot pick.
		return sel.String()
	}
	reqs, _ := m.selector.Requirements()
	return sel.Add(reqs...).String()
}

// LatestOnly reports whether the query keeps only each release's highest revision.
func (m *Matcher) LatestOnly() bool { return m.q.LatestOnly }

// MatchScope reports whether an object belongs to the query's namespace and
// release, before statuses and the selector apply.
func (m *Matcher) MatchScope(ns string, lbls map[string]string) bool {
	if m.q.Namespace != "" && ns != m.q.Namespace {
		return false
	}
	return lbls[LabelOwner] == Owner && (m.q.Name == "" || lbls[LabelName] == m.q.Name)
}

// Latest returns, of items in scope, the index of each release's highest
// revision, in input order. nsOf and labelsOf read an item.
func Latest[T any](items []T, nsOf func(T) string, labelsOf func(T) map[string]string) []int {
	type key struct{ ns, name string }
	best := map[key]int{}
	var order []key
	for i, it := range items {
		l := labelsOf(it)
		k := key{nsOf(it), l[LabelName]}
		v, err := strconv.Atoi(l[LabelVersion])
		if err != nil {
			v = -1
		}
		j, ok := best[k]
		if !ok {
			order = append(order, k)
			best[k] = i
			continue
		}
		if w, err := strconv.Atoi(labelsOf(items[j])[LabelVersion]); err != nil || v > w {
			best[k] = i
		}
	}
	out := make([]int, 0, len(order))
	for _, k := range order {
		out = append(out, best[k])
	}
	sort.Ints(out)
	return out
}

// Match reports whether an object in namespace ns with these labels is selected.
func (m *Matcher) Match(ns string, lbls map[string]string) bool {
	if m.q.Namespace != "" && ns != m.q.Namespace {
		return false
	}
	if lbls[LabelOwner] != Owner {
		return false
	}
	if m.q.Name != "" && lbls[LabelName] != m.q.Name {
		return false
	}
	if m.statuses != nil && !m.statuses[release.Status(lbls[LabelStatus])] {
		return false
	}
	return m.selector.Matches(labels.Set(lbls))
}

// ErrInvalidRelease is a release a store refuses to write.
var ErrInvalidRelease = errors.New("invalid release")

// Validate checks what every store needs to file a revision.
func Validate(r *release.Release) error {
	switch {
	case r == nil:
		return fmt.Errorf("%w: nil release", ErrInvalidRelease)
	case r.Name == "":
		return fmt.Errorf("%w: empty name", ErrInvalidRelease)
	case r.Version < 1:
		return fmt.Errorf("%w: release %q has revision %d, want 1 or more", ErrInvalidRelease, r.Name, r.Version)
	case r.Namespace == "":
		return fmt.Errorf("%w: release %q has no namespace", ErrInvalidRelease, r.Name)
	}
	return nil
}
