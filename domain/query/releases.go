// Package query holds the read-only release queries (list, history, get):
// what they read of the store and in which words they refuse.
package query

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/releasename"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// ListRequest selects releases to list, with `helm list`'s semantics: the latest
// revision of each release, filtered by status, name and labels, sorted and paged.
type ListRequest struct {
	// Namespace to list; "" lists all namespaces.
	Namespace string
	// Statuses keeps releases whose latest revision is in one of these; empty
	// means deployed and failed (Helm's default).
	Statuses []release.Status
	// Filter is a regular expression on release names.
	Filter string
	// Selector is a label selector on the storage labels of the latest revision.
	Selector string
	// ByDate sorts by last deployment, oldest first; Reverse reverses the order.
	ByDate, Reverse bool
	// Max limits the count after Offset; 0 is no limit.
	Max, Offset int
}

// ListResponse is a listing plus the records that could not be read.
type ListResponse struct {
	Releases []release.Summary
	Problems []ports.RecordError
}

// ListReleases lists releases from summaries alone, never decoding payloads the
// store can avoid.
func ListReleases(ctx context.Context, store ports.ReleaseStore, req ListRequest) (ListResponse, error) {
	var filter *regexp.Regexp
	if req.Filter != "" {
		var err error
		// Helm's words: the error names the expression already.
		if filter, err = regexp.Compile(req.Filter); err != nil {
			return ListResponse{}, err
		}
	}
	states := map[release.Status]bool{}
	for _, s := range req.Statuses {
		states[s] = true
	}
	if len(states) == 0 {
		states[release.StatusDeployed], states[release.StatusFailed] = true, true
	}
	// Superseded revisions are never the latest; asking only for them lists every one.
	onlySuperseded := len(states) == 1 && states[release.StatusSuperseded]
	// Records the store would decode to summarise are read once the page is
	// known (all of them to sort by date).
	res, err := store.List(ctx, ports.ListQuery{Namespace: req.Namespace, LatestOnly: !onlySuperseded, LabelsOnly: true})
	if err != nil {
		return ListResponse{}, err
	}
	type key struct{ ns, name string }
	latest := map[key]int{}
	var picked []release.Summary
	named := false
	for i, s := range res.Releases {
		if filter != nil && !filter.MatchString(s.Name) {
			continue
		}
		named = true
		if onlySuperseded {
			picked = append(picked, s)
			continue
		}
		k := key{s.Namespace, s.Name}
		if j, ok := latest[k]; !ok || res.Releases[j].Revision < s.Revision {
			latest[k] = i
		}
	}
	if !onlySuperseded {
		for _, i := range latest {
			picked = append(picked, res.Releases[i])
		}
	}
	// As Helm, the selector is read once a release is named: with none, a
	// selector it cannot parse lists nothing.
	if !named {
		return ListResponse{Problems: res.Problems}, nil
	}
	sel := labels.Everything()
	if req.Selector != "" {
		if sel, err = labels.Parse(req.Selector); err != nil {
			return ListResponse{}, err
		}
	}
	out := picked[:0]
	for _, s := range picked {
		if !states[s.Status] || !sel.Matches(labels.Set(storageLabels(s))) {
			continue
		}
		out = append(out, s)
	}
	problems := res.Problems
	if req.ByDate {
		var unread []ports.RecordError
		if out, unread, err = completeSummaries(ctx, store, out, 0); err != nil {
			return ListResponse{}, err
		}
		problems = append(problems, unread...)
	}
	sortSummaries(out, req.ByDate, req.Reverse)
	n := 0
	if req.Max > 0 {
		n = req.Offset + req.Max
	}
	out, unread, err := completeSummaries(ctx, store, out, n)
	if err != nil {
		return ListResponse{}, err
	}
	problems = append(problems, unread...)
	if req.Offset >= len(out) {
		return ListResponse{Releases: []release.Summary{}, Problems: problems}, nil
	}
	out = out[req.Offset:]
	if req.Max > 0 && req.Max < len(out) {
		out = out[:req.Max]
	}
	return ListResponse{Releases: out, Problems: problems}, nil
}

// storageLabels rebuilds the labels a selector sees: the user's and Helm's.
func storageLabels(s release.Summary) map[string]string {
	out := make(map[string]string, len(s.Labels)+4)
	for k, v := range s.Labels {
		out[k] = v
	}
	out["name"], out["owner"], out["status"], out["version"] = s.Name, "helm", string(s.Status), strconv.Itoa(s.Revision)
	return out
}

func sortSummaries(s []release.Summary, byDate, reverse bool) {
	less := func(a, b release.Summary) bool {
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Namespace < b.Namespace
	}
	if byDate {
		// Helm compares whole seconds.
		less = func(a, b release.Summary) bool {
			if ta, tb := a.Updated.Unix(), b.Updated.Unix(); ta != tb {
				return ta < tb
			}
			return a.Name < b.Name
		}
	}
	sort.SliceStable(s, func(i, j int) bool {
		if reverse {
			return less(s[j], s[i])
		}
		return less(s[i], s[j])
	})
}

// ReleaseHistory returns the summaries of a release's last max revisions (all
// when max <= 0), oldest first, and the revisions that could not be read.
func ReleaseHistory(ctx context.Context, store ports.ReleaseStore, namespace, name string, max int) ([]release.Summary, []ports.RecordError, error) {
	if err := releasename.Check(name, releasename.HistoryWords); err != nil {
		return nil, nil, err
	}
	res, err := store.List(ctx, ports.ListQuery{Namespace: namespace, Name: name})
	if err != nil {
		return nil, nil, err
	}
	if len(res.Releases) == 0 && len(res.Problems) == 0 {
		return nil, nil, ports.ErrReleaseNotFound // Helm's words, no more
	}
	revs := res.Releases
	sort.Slice(revs, func(i, j int) bool { return revs[i].Revision < revs[j].Revision })
	if max > 0 && len(revs) > max {
		revs = revs[len(revs)-max:]
	}
	return revs, res.Problems, nil
}

// GetRelease returns a revision, the latest when revision <= 0.
func GetRelease(ctx context.Context, store ports.ReleaseStore, namespace, name string, revision int) (*release.Release, error) {
	if err := releasename.Check(name, releasename.ReadWords); err != nil {
		return nil, err
	}
	if revision <= 0 {
		res, err := store.List(ctx, ports.ListQuery{Namespace: namespace, Name: name, LatestOnly: true, LabelsOnly: true})
		if err != nil {
			return nil, err
		}
		for _, s := range res.Releases {
			revision = max(revision, s.Revision)
		}
		if revision <= 0 {
			if len(res.Problems) > 0 {
				return nil, res.Problems[0]
			}
			return nil, ports.ErrReleaseNotFound // Helm's words, no more
		}
	}
	rel, err := store.Get(ctx, namespace, name, revision)
	if errors.Is(err, ports.ErrReleaseNotFound) {
		return nil, ports.ErrReleaseNotFound
	}
	return rel, err
}
