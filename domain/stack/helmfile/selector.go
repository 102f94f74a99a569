package helmfile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/domain/stack"
)

var (
	labelMismatch = regexp.MustCompile(`^[a-zA-Z0-9_\.\/\+-]+!=[a-zA-Z0-9_\.\/\+-]+$`)
	labelMatch    = regexp.MustCompile(`^[a-zA-Z0-9_\.\/\+-]+=[a-zA-Z0-9_\.\/\+-]+$`)
)

// selector is one -l: every key=value must match, no key!=value may.
type selector struct {
	positive, negative [][2]string
}

func parseSelector(s string) (selector, error) {
	var sel selector
	for _, label := range strings.Split(s, ",") {
		switch {
		case labelMismatch.MatchString(label):
			k, v, _ := strings.Cut(label, "!=")
			sel.negative = append(sel.negative, [2]string{k, v})
		case labelMatch.MatchString(label):
			k, v, _ := strings.Cut(label, "=")
			sel.positive = append(sel.positive, [2]string{k, v})
		default:
			return sel, fmt.Errorf("malformed label: %s. Expected label in form k=v or k!=v", label)
		}
	}
	return sel, nil
}

func (s selector) match(labels map[string]string) bool {
	for _, kv := range s.positive {
		if v, ok := labels[kv[0]]; !ok || v != kv[1] {
			return false
		}
	}
	for _, kv := range s.negative {
		if v, ok := labels[kv[0]]; ok && v == kv[1] {
			return false
		}
	}
	return true
}

// selectorLabels are a release's labels plus helmfile's name, namespace and
// chart (the chart's last path element).
func selectorLabels(r stack.Release) map[string]string {
	l := map[string]string{}
	for k, v := range r.Labels {
		l[k] = v
	}
	l["name"] = r.ID.Name
	l["namespace"] = r.ID.Namespace
	l["chart"] = r.Chart[strings.LastIndex(r.Chart, "/")+1:]
	return l
}

// selectReleases keeps the enabled releases any selector matches (all
// without selectors), and with includeNeeds what they need, transitively,
// enabled or not (helmfile's --include-needs takes them all).
func selectReleases(rels []stack.Release, disabled map[declared]bool, selectors []string, includeNeeds bool) ([]stack.Release, error) {
	if len(selectors) == 0 {
		var out []stack.Release
		for _, r := range rels {
			if !disabled[declaredAt(r)] {
				out = append(out, r)
			}
		}
		return out, nil
	}
	sels := make([]selector, 0, len(selectors))
	for _, s := range selectors {
		sel, err := parseSelector(s)
		if err != nil {
			return nil, err
		}
		sels = append(sels, sel)
	}
	keep := map[stack.ID]bool{}
	for _, r := range rels {
		if disabled[declaredAt(r)] {
			continue
		}
		labels := selectorLabels(r)
		for _, s := range sels {
			if s.match(labels) {
				keep[r.ID] = true
				break
			}
		}
	}
	// needed are what selected releases need, taken even when disabled.
	needed := map[stack.ID]bool{}
	if includeNeeds {
		byID := map[stack.ID]stack.Release{}
		for _, r := range rels {
			byID[r.ID] = r
		}
		var add func(id stack.ID)
		add = func(id stack.ID) {
			for _, n := range byID[id].Needs {
				needed[n] = true
				if !keep[n] {
					keep[n] = true
					add(n)
				}
			}
		}
		for id := range keep {
			add(id)
		}
	}
	var out []stack.Release
	for _, r := range rels {
		if keep[r.ID] && (!disabled[declaredAt(r)] || needed[r.ID]) {
			out = append(out, r)
		}
	}
	return out, nil
}
