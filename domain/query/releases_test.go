package query_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/query"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func seedReleases(t *testing.T) ports.ReleaseStore {
	t.Helper()
	s := memory.New()
	add := func(ns, name string, rev int, st release.Status, deployedAt int, lbls map[string]string) {
		r := porttest.Release(ns, name, rev, st)
		r.Info.LastDeployed = release.Time{Time: time.Unix(int64(deployedAt), 0).UTC()}
		r.Labels = lbls
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	add("a", "web", 1, release.StatusSuperseded, 10, nil)
	add("a", "web", 2, release.StatusDeployed, 50, map[string]string{"tier": "front"})
	add("a", "api", 1, release.StatusDeployed, 40, map[string]string{"tier": "back"})
	add("a", "api", 2, release.StatusFailed, 60, map[string]string{"tier": "back"})
	add("a", "db", 1, release.StatusPendingInstall, 30, nil)
	add("b", "web", 1, release.StatusUninstalled, 20, nil)
	add("b", "cache", 1, release.StatusDeployed, 70, nil)
	return s
}

func TestListReleases(t *testing.T) {
	s := seedReleases(t)
	tests := map[string]struct {
		req  query.ListRequest
		want []string // namespace/name@revision
	}{
		"default: deployed and failed latest, by name": {query.ListRequest{Namespace: "a"}, []string{"a/api@2", "a/web@2"}},
		"all namespaces":                 {query.ListRequest{}, []string{"a/api@2", "b/cache@1", "a/web@2"}},
		"all statuses":                   {query.ListRequest{Namespace: "a", Statuses: release.AllStatuses()}, []string{"a/api@2", "a/db@1", "a/web@2"}},
		"pending":                        {query.ListRequest{Statuses: []release.Status{release.StatusPendingInstall}}, []string{"a/db@1"}},
		"only superseded lists old ones": {query.ListRequest{Statuses: []release.Status{release.StatusSuperseded}}, []string{"a/web@1"}},
		"uninstalled":                    {query.ListRequest{Statuses: []release.Status{release.StatusUninstalled}}, []string{"b/web@1"}},
		"filter":                         {query.ListRequest{Filter: "^w"}, []string{"a/web@2"}},
		"selector on latest":             {query.ListRequest{Selector: "tier=back,status=failed"}, []string{"a/api@2"}},
		"by date":                        {query.ListRequest{ByDate: true}, []string{"a/web@2", "a/api@2", "b/cache@1"}},
		"by date reversed":               {query.ListRequest{ByDate: true, Reverse: true}, []string{"b/cache@1", "a/api@2", "a/web@2"}},
		"reverse":                        {query.ListRequest{Reverse: true}, []string{"a/web@2", "b/cache@1", "a/api@2"}},
		"max and offset":                 {query.ListRequest{Max: 1, Offset: 1}, []string{"b/cache@1"}},
		"offset past the end":            {query.ListRequest{Offset: 9}, nil},
	}
	stores := map[string]ports.ReleaseStore{"summarising store": s, "labels-only store": &porttest.LabelsOnlyStore{ReleaseStore: s}}
	for name, tc := range tests {
		for kind, store := range stores {
			t.Run(name+" ("+kind+")", func(t *testing.T) {
				res, err := query.ListReleases(context.Background(), store, tc.req)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, r := range res.Releases {
					got = append(got, r.Namespace+"/"+r.Name+"@"+string(rune('0'+r.Revision)))
					if r.Partial || r.Chart == "" || r.Updated.IsZero() {
						t.Errorf("summary %+v is incomplete", r)
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
	}
	if _, err := query.ListReleases(context.Background(), s, query.ListRequest{Filter: "("}); err == nil {
		t.Error("a bad --filter was accepted")
	}
}

func TestListReleasesReadsOnlyThePage(t *testing.T) {
	tests := map[string]struct {
		req        query.ListRequest
		unreadable string
		want       []string // namespace/name
		gets       int64
		problems   int
	}{
		"one page of one":                       {query.ListRequest{Max: 1}, "", []string{"a/api"}, 1, 0},
		"offset pages are read":                 {query.ListRequest{Max: 1, Offset: 1}, "", []string{"b/cache"}, 2, 0},
		"no max reads every listed":             {query.ListRequest{}, "", []string{"a/api", "b/cache", "a/web"}, 3, 0},
		"an unreadable one is replaced":         {query.ListRequest{Max: 1}, "api", []string{"b/cache"}, 2, 1},
		"by date reads all before sorting":      {query.ListRequest{Max: 1, ByDate: true}, "", []string{"a/web"}, 3, 0},
		"an unreadable one is left out by date": {query.ListRequest{Max: 1, ByDate: true}, "web", []string{"a/api"}, 3, 1},
		"filtered out by labels are never read": {query.ListRequest{Filter: "^w", Max: 5}, "", []string{"a/web"}, 1, 0},
		"statuses filtered out are never read":  {query.ListRequest{Statuses: []release.Status{release.StatusPendingInstall}}, "", []string{"a/db"}, 1, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := &porttest.LabelsOnlyStore{ReleaseStore: seedReleases(t), Unreadable: tc.unreadable}
			res, err := query.ListReleases(context.Background(), s, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res.Releases {
				got = append(got, r.Namespace+"/"+r.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if n := s.Gets.Load(); n != tc.gets {
				t.Errorf("%d revisions read, want %d", n, tc.gets)
			}
			if len(res.Problems) != tc.problems {
				t.Errorf("problems = %v, want %d", res.Problems, tc.problems)
			}
		})
	}
}

func TestReleaseHistoryAndGet(t *testing.T) {
	s := seedReleases(t)
	h, _, err := query.ReleaseHistory(context.Background(), s, "a", "web", 1)
	if err != nil || len(h) != 1 || h[0].Revision != 2 {
		t.Fatalf("ReleaseHistory max 1 = %+v, %v", h, err)
	}
	if _, _, err := query.ReleaseHistory(context.Background(), s, "a", "nope", 0); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("history of a missing release: %v", err)
	}
	r, err := query.GetRelease(context.Background(), s, "a", "api", 0)
	if err != nil || r.Version != 2 {
		t.Fatalf("GetRelease latest = %v, %v", r, err)
	}
	if r, err = query.GetRelease(context.Background(), s, "a", "api", 1); err != nil || r.Version != 1 {
		t.Fatalf("GetRelease 1 = %v, %v", r, err)
	}
	if _, err := query.GetRelease(context.Background(), s, "a", "nope", 0); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("GetRelease of a missing release: %v", err)
	}
}

// TestListReleasesRefusesAsHelm checks the words of a bad --filter and a bad
// selector, and that Helm reads the selector only once a release is named.
func TestListReleasesRefusesAsHelm(t *testing.T) {
	s := seedReleases(t)
	tests := map[string]struct {
		req     query.ListRequest
		wantErr string
		want    int
	}{
		"bad filter":                     {req: query.ListRequest{Filter: "("}, wantErr: "error parsing regexp: missing closing ): `(`"},
		"bad selector":                   {req: query.ListRequest{Selector: "a in (b"}, wantErr: "unable to parse requirement: found '', expected: ',' or ')'"},
		"bad selector, no release":       {req: query.ListRequest{Namespace: "none", Selector: "a in (b"}},
		"bad selector, none filtered in": {req: query.ListRequest{Filter: "^nothing$", Selector: "a in (b"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := query.ListReleases(context.Background(), s, tc.req)
			switch {
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			}
			if len(got.Releases) != tc.want {
				t.Errorf("%d releases, want %d", len(got.Releases), tc.want)
			}
		})
	}
}
