// Package porttest holds the contract suites every adapter of a port runs
// unchanged, so that adapters are interchangeable.
package porttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/chart"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// NewReleaseStore returns a store with no releases in the two namespaces it
// names. The suite calls it once per test; stores over a shared backend (a real
// cluster) give fresh namespaces each time.
type NewReleaseStore func(t *testing.T) (store ports.ReleaseStore, namespaces [2]string)

// LargeChartBytes is the size of the incompressible file in the large-record
// test: well past Kubernetes' 1 MiB object limit (under the race detector the
// test uses a smaller one, see large_race.go).
const LargeChartBytes = 5 << 20

// ReleaseStore runs the release store contract.
func ReleaseStore(t *testing.T, newStore NewReleaseStore) {
	tests := map[string]func(t *testing.T, s ports.ReleaseStore, ns [2]string){
		"create then get returns the same record":      testCreateGet,
		"create of an existing revision fails":         testCreateExisting,
		"get of a missing revision is not found":       testGetMissing,
		"update replaces a revision":                   testUpdate,
		"update of a missing revision is not found":    testUpdateMissing,
		"history is per release and oldest first":      testHistory,
		"history of a missing release is not found":    testHistoryMissing,
		"list filters by namespace, name and status":   testListFilters,
		"list selects by labels":                       testListSelector,
		"list keeps the latest revisions when asked":   testListLatest,
		"list summarises without losing fields":        testListSummary,
		"list from labels only marks what it leaves":   testListLabelsOnly,
		"list refuses a malformed selector":            testListBadSelector,
		"delete removes and returns a revision":        testDelete,
		"stored records are not shared with callers":   testIsolation,
		"concurrent creates of one revision: one wins": testConcurrentCreate,
		"invalid releases are refused":                 testInvalid,
		"records past 1 MiB are stored and read back":  testLarge,
	}
	names := make([]string, 0, len(tests))
	for name := range tests {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s, ns := newStore(t)
			tests[name](t, s, ns)
		})
	}
}

var baseTime = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// Release builds a realistic revision for tests: a chart with templates, values,
// a schema and files, user values, a manifest, a hook and notes.
func Release(namespace, name string, revision int, status release.Status) *release.Release {
	deployed := baseTime.Add(time.Duration(revision) * time.Minute)
	return &release.Release{
		Name:      name,
		Namespace: namespace,
		Version:   revision,
		Info: &release.Info{
			FirstDeployed: release.Time{Time: baseTime},
			LastDeployed:  release.Time{Time: deployed},
			Description:   fmt.Sprintf("Revision %d of %s", revision, name),
			Status:        status,
			Notes:         "Thank you for installing " + name + ".\n",
		},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{
				APIVersion:  "v2",
				Name:        "web",
				Version:     fmt.Sprintf("1.%d.0", revision),
				AppVersion:  "2.4.1",
				Description: "A web server",
				Type:        "application",
			},
			Templates: []*chart.File{
				{Name: "templates/deployment.yaml", Data: []byte("kind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")},
				{Name: "templates/NOTES.txt", Data: []byte("Thank you for installing {{ .Release.Name }}.\n")},
			},
			Values: map[string]any{"replicas": float64(1), "image": map[string]any{"tag": "latest"}},
			Schema: []byte(`{"type":"object"}`),
			Files:  []*chart.File{{Name: "README.md", Data: []byte("# web\n")}},
		},
		Config:   map[string]any{"replicas": float64(revision)},
		Manifest: "---\n# Source: web/templates/deployment.yaml\nkind: Deployment\nmetadata:\n  name: " + name + "\n",
		Hooks: []*release.Hook{{
			Name:     name + "-migrate",
			Kind:     "Job",
			Path:     "web/templates/migrate.yaml",
			Manifest: "kind: Job\n",
			Events:   []release.HookEvent{release.HookPreUpgrade},
			LastRun: release.HookExecution{
				StartedAt:   release.Time{Time: deployed},
				CompletedAt: release.Time{Time: deployed.Add(time.Second)},
				Phase:       release.HookPhaseSucceeded,
			},
			DeletePolicies: []release.HookDeletePolicy{release.HookBeforeHookCreation},
		}},
		Labels: map[string]string{"team": "payments"},
	}
}

func mustCreate(t *testing.T, s ports.ReleaseStore, rels ...*release.Release) {
	t.Helper()
	for _, r := range rels {
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatalf("Create(%s/%s v%d): %v", r.Namespace, r.Name, r.Version, err)
		}
	}
}

// AssertSame fails unless two releases have the same record and user labels.
func AssertSame(t *testing.T, got, want *release.Release) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("record differs:\n got %.2000s\nwant %.2000s", g, w)
	}
	if len(got.Labels)+len(want.Labels) > 0 && !reflect.DeepEqual(got.Labels, want.Labels) {
		t.Errorf("labels = %v, want %v", got.Labels, want.Labels)
	}
}

func testCreateGet(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	want := Release(ns[0], "web", 1, release.StatusDeployed)
	mustCreate(t, s, want)
	got, err := s.Get(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	AssertSame(t, got, want)
}

func testCreateExisting(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	mustCreate(t, s, Release(ns[0], "web", 1, release.StatusDeployed))
	err := s.Create(context.Background(), Release(ns[0], "web", 1, release.StatusFailed))
	if !errors.Is(err, ports.ErrReleaseExists) {
		t.Fatalf("second Create = %v, want ErrReleaseExists", err)
	}
	got, err := s.Get(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Status != release.StatusDeployed {
		t.Errorf("the failed Create changed the record: status %q", got.Info.Status)
	}
}

func testGetMissing(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	mustCreate(t, s, Release(ns[0], "web", 1, release.StatusDeployed))
	for _, c := range []struct {
		ns, name string
		rev      int
	}{{ns[0], "web", 2}, {ns[0], "api", 1}, {ns[1], "web", 1}} {
		if _, err := s.Get(context.Background(), c.ns, c.name, c.rev); !errors.Is(err, ports.ErrReleaseNotFound) {
			t.Errorf("Get(%s, %s, %d) = %v, want ErrReleaseNotFound", c.ns, c.name, c.rev, err)
		}
	}
}

func testUpdate(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	r := Release(ns[0], "web", 1, release.StatusPendingInstall)
	mustCreate(t, s, r)
	if err := r.Apply(release.EventSucceeded, "Install complete"); err != nil {
		t.Fatal(err)
	}
	r.Labels = map[string]string{"team": "billing", "tier": "web"}
	if err := s.Update(context.Background(), r); err != nil {
		t.Fatalf("Update: %v", err)
	}
	got, err := s.Get(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	AssertSame(t, got, r)
	res, err := s.List(context.Background(), ports.ListQuery{Namespace: ns[0], Statuses: []release.Status{release.StatusDeployed}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Releases) != 1 || res.Releases[0].Status != release.StatusDeployed || res.Releases[0].Description != "Install complete" {
		t.Errorf("List after Update = %+v, want the deployed revision", res.Releases)
	}
}

func testUpdateMissing(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	err := s.Update(context.Background(), Release(ns[0], "web", 1, release.StatusDeployed))
	if !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Fatalf("Update = %v, want ErrReleaseNotFound", err)
	}
	if _, err := s.Get(context.Background(), ns[0], "web", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("Update of a missing revision created it: Get = %v", err)
	}
}

func testHistory(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	mustCreate(t, s,
		Release(ns[0], "web", 3, release.StatusDeployed),
		Release(ns[0], "web", 1, release.StatusSuperseded),
		Release(ns[0], "web", 2, release.StatusFailed),
		Release(ns[0], "webapp", 1, release.StatusDeployed),
		Release(ns[1], "web", 7, release.StatusDeployed),
	)
	h, err := s.History(context.Background(), ns[0], "web")
	if err != nil {
		t.Fatal(err)
	}
	var revs []int
	for _, r := range h {
		if r.Name != "web" || r.Namespace != ns[0] {
			t.Errorf("history holds %s/%s", r.Namespace, r.Name)
		}
		revs = append(revs, r.Version)
	}
	if !slices.Equal(revs, []int{1, 2, 3}) {
		t.Errorf("History revisions = %v, want [1 2 3]", revs)
	}
	AssertSame(t, h[1], Release(ns[0], "web", 2, release.StatusFailed))
}

func testHistoryMissing(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	mustCreate(t, s, Release(ns[1], "web", 1, release.StatusDeployed))
	if _, err := s.History(context.Background(), ns[0], "web"); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Fatalf("History = %v, want ErrReleaseNotFound", err)
	}
}

type revKey struct {
	ns, name string
	rev      int
}

func listKeys(t *testing.T, s ports.ReleaseStore, q ports.ListQuery, ns [2]string) []revKey {
	t.Helper()
	res, err := s.List(context.Background(), q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	if len(res.Problems) > 0 {
		t.Errorf("List(%+v) problems: %v", q, res.Problems)
	}
	var keys []revKey
	for _, r := range res.Releases {
		// A shared backend may hold other tests' releases; keep ours.
		if r.Namespace != ns[0] && r.Namespace != ns[1] {
			continue
		}
		keys = append(keys, revKey{r.Namespace, r.Name, r.Revision})
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.ns != b.ns {
			return a.ns < b.ns
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.rev < b.rev
	})
	return keys
}

func seedList(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	t.Helper()
	api := Release(ns[0], "api", 1, release.StatusFailed)
	api.Labels = map[string]string{"team": "core", "tier": "backend"}
	mustCreate(t, s,
		Release(ns[0], "web", 1, release.StatusSuperseded),
		Release(ns[0], "web", 2, release.StatusDeployed),
		api,
		Release(ns[1], "web", 1, release.StatusPendingInstall),
	)
}

func assertKeys(t *testing.T, what string, got []revKey, want ...revKey) {
	t.Helper()
	if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func testListFilters(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	seedList(t, s, ns)
	assertKeys(t, "namespace", listKeys(t, s, ports.ListQuery{Namespace: ns[0]}, ns),
		revKey{ns[0], "api", 1}, revKey{ns[0], "web", 1}, revKey{ns[0], "web", 2})
	all := listKeys(t, s, ports.ListQuery{}, ns)
	if len(all) != 4 {
		t.Errorf("all namespaces = %v, want 4 revisions", all)
	}
	assertKeys(t, "name across namespaces", listKeys(t, s, ports.ListQuery{Name: "web", Statuses: []release.Status{release.StatusPendingInstall, release.StatusDeployed}}, ns),
		sortedKeys(revKey{ns[0], "web", 2}, revKey{ns[1], "web", 1})...)
	assertKeys(t, "status", listKeys(t, s, ports.ListQuery{Namespace: ns[0], Statuses: []release.Status{release.StatusFailed, release.StatusSuperseded}}, ns),
		revKey{ns[0], "api", 1}, revKey{ns[0], "web", 1})
	assertKeys(t, "nothing", listKeys(t, s, ports.ListQuery{Namespace: ns[1], Name: "api"}, ns))
}

func sortedKeys(keys ...revKey) []revKey {
	sort.Slice(keys, func(i, j int) bool { return keys[i].ns < keys[j].ns })
	return keys
}

func testListSelector(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	seedList(t, s, ns)
	for sel, want := range map[string][]revKey{
		"team=core":                  {{ns[0], "api", 1}},
		"team!=core":                 {{ns[0], "web", 1}, {ns[0], "web", 2}},
		"tier":                       {{ns[0], "api", 1}},
		"!tier,status=deployed":      {{ns[0], "web", 2}},
		"name=web,version=1":         {{ns[0], "web", 1}},
		"owner=helm,team in (core)":  {{ns[0], "api", 1}},
		"status in (failed,unknown)": {{ns[0], "api", 1}},
	} {
		assertKeys(t, "selector "+sel, listKeys(t, s, ports.ListQuery{Namespace: ns[0], Selector: sel}, ns), want...)
	}
}

func testListLatest(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	seedList(t, s, ns)
	mustCreate(t, s, Release(ns[0], "web", 10, release.StatusFailed)) // 10 sorts before 2 as text
	assertKeys(t, "latest", listKeys(t, s, ports.ListQuery{Namespace: ns[0], LatestOnly: true}, ns),
		revKey{ns[0], "api", 1}, revKey{ns[0], "web", 10})
	assertKeys(t, "latest across namespaces", listKeys(t, s, ports.ListQuery{Name: "web", LatestOnly: true}, ns),
		sortedKeys(revKey{ns[0], "web", 10}, revKey{ns[1], "web", 1})...)
	assertKeys(t, "statuses apply after", listKeys(t, s, ports.ListQuery{Namespace: ns[0], LatestOnly: true, Statuses: []release.Status{release.StatusDeployed}}, ns))
	assertKeys(t, "selector applies after", listKeys(t, s, ports.ListQuery{Namespace: ns[0], LatestOnly: true, Selector: "version=1"}, ns),
		revKey{ns[0], "api", 1})
}

func testListSummary(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	r := Release(ns[0], "web", 4, release.StatusDeployed)
	mustCreate(t, s, r)
	res, err := s.List(context.Background(), ports.ListQuery{Namespace: ns[0]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Releases) != 1 {
		t.Fatalf("List = %+v, want one revision", res.Releases)
	}
	got, want := res.Releases[0], r.Summarize()
	if !got.Updated.Equal(want.Updated.Time) || !got.FirstApplied.Equal(want.FirstApplied.Time) {
		t.Errorf("times = %v, %v; want %v, %v", got.Updated, got.FirstApplied, want.Updated, want.FirstApplied)
	}
	got.Updated, want.Updated, got.FirstApplied, want.FirstApplied = release.Time{}, release.Time{}, release.Time{}, release.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary = %+v\nwant %+v", got, want)
	}
}

func testListLabelsOnly(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	seedList(t, s, ns)
	for _, q := range []ports.ListQuery{{Namespace: ns[0]}, {Namespace: ns[0], LatestOnly: true}, {Name: "web", Selector: "status!=failed"}} {
		full := q
		q.LabelsOnly = true
		assertKeys(t, fmt.Sprintf("labels only %+v", q), listKeys(t, s, q, ns), listKeys(t, s, full, ns)...)
	}
	res, err := s.List(context.Background(), ports.ListQuery{Namespace: ns[0], LabelsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	summarizer, _ := s.(ports.ReleaseSummarizer)
	if summarizer != nil {
		if _, err := summarizer.Summary(context.Background(), ns[0], "web", 9); !errors.Is(err, ports.ErrReleaseNotFound) {
			t.Errorf("Summary of a missing revision = %v, want ErrReleaseNotFound", err)
		}
	}
	for _, got := range res.Releases {
		r, err := s.Get(context.Background(), got.Namespace, got.Name, got.Revision)
		if err != nil {
			t.Fatalf("Get of listed %s/%s.v%d: %v", got.Namespace, got.Name, got.Revision, err)
		}
		want := r.Summarize()
		if summarizer != nil {
			// A store's Summary is what Get and Summarize tell.
			sum, err := summarizer.Summary(context.Background(), got.Namespace, got.Name, got.Revision)
			if err != nil {
				t.Fatalf("Summary of listed %s/%s.v%d: %v", got.Namespace, got.Name, got.Revision, err)
			}
			if !sum.Updated.Equal(want.Updated.Time) || sum.Chart != want.Chart || sum.Status != want.Status || sum.Description != want.Description || !reflect.DeepEqual(sum.Labels, want.Labels) {
				t.Errorf("Summary = %+v, want %+v", sum, want)
			}
		}
		if got.Partial {
			// What storage labels tell is still there.
			if got.Name != want.Name || got.Namespace != want.Namespace || got.Revision != want.Revision || got.Status != want.Status || !reflect.DeepEqual(got.Labels, want.Labels) {
				t.Errorf("partial summary = %+v, want the labels' part of %+v", got, want)
			}
			continue
		}
		if !got.Updated.Equal(want.Updated.Time) || !got.FirstApplied.Equal(want.FirstApplied.Time) {
			t.Errorf("times = %v, %v; want %v, %v", got.Updated, got.FirstApplied, want.Updated, want.FirstApplied)
		}
		got.Updated, want.Updated, got.FirstApplied, want.FirstApplied = release.Time{}, release.Time{}, release.Time{}, release.Time{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("summary = %+v\nwant %+v", got, want)
		}
	}
	if summarizer != nil {
		checkSummaries(t, summarizer, res.Releases, ns)
	}
}

// checkSummaries checks that Summaries of the listed revisions, with a missing
// one among them, tells what Summary tells of each.
func checkSummaries(t *testing.T, summarizer ports.ReleaseSummarizer, listed []release.Summary, ns [2]string) {
	t.Helper()
	refs := []ports.RevisionRef{{Namespace: ns[0], Name: "web", Revision: 9}}
	for _, s := range listed {
		refs = append(refs, ports.RevisionRef{Namespace: s.Namespace, Name: s.Name, Revision: s.Revision})
	}
	sums, errs := summarizer.Summaries(context.Background(), refs)
	if len(sums) != len(refs) || len(errs) != len(refs) {
		t.Fatalf("Summaries of %d revisions = %d summaries, %d errors", len(refs), len(sums), len(errs))
	}
	for i, ref := range refs {
		want, wantErr := summarizer.Summary(context.Background(), ref.Namespace, ref.Name, ref.Revision)
		if errors.Is(errs[i], ports.ErrReleaseNotFound) != errors.Is(wantErr, ports.ErrReleaseNotFound) || (errs[i] == nil) != (wantErr == nil) {
			t.Errorf("Summaries error of %+v = %v, want %v", ref, errs[i], wantErr)
			continue
		}
		if !reflect.DeepEqual(sums[i], want) {
			t.Errorf("Summaries of %+v = %+v, want %+v", ref, sums[i], want)
		}
	}
}

func testListBadSelector(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	if _, err := s.List(context.Background(), ports.ListQuery{Namespace: ns[0], Selector: "team in (a"}); err == nil {
		t.Fatal("List with a malformed selector succeeded")
	}
}

func testDelete(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	want := Release(ns[0], "web", 1, release.StatusDeployed)
	mustCreate(t, s, want, Release(ns[0], "web", 2, release.StatusDeployed))
	got, err := s.Delete(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}
	AssertSame(t, got, want)
	if _, err := s.Get(context.Background(), ns[0], "web", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("Get after Delete = %v, want ErrReleaseNotFound", err)
	}
	if _, err := s.Delete(context.Background(), ns[0], "web", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("second Delete = %v, want ErrReleaseNotFound", err)
	}
	assertKeys(t, "list after delete", listKeys(t, s, ports.ListQuery{Namespace: ns[0]}, ns), revKey{ns[0], "web", 2})
}

func testIsolation(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	r := Release(ns[0], "web", 1, release.StatusDeployed)
	mustCreate(t, s, r)
	r.Info.Status = release.StatusFailed
	r.Config["replicas"] = float64(99)
	r.Labels["team"] = "changed"
	got, err := s.Get(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	AssertSame(t, got, Release(ns[0], "web", 1, release.StatusDeployed))
	got.Info.Status = release.StatusUnknown
	got.Labels["team"] = "changed"
	again, err := s.Get(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	AssertSame(t, again, Release(ns[0], "web", 1, release.StatusDeployed))
}

func testConcurrentCreate(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := Release(ns[0], "web", 1, release.StatusPendingInstall)
			r.Info.Description = fmt.Sprintf("writer %d", i)
			errs[i] = s.Create(context.Background(), r)
		}()
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Fatalf("writers %d and %d both created revision 1", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, ports.ErrReleaseExists):
			t.Errorf("writer %d: %v, want ErrReleaseExists", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no writer created the revision")
	}
	got, err := s.Get(context.Background(), ns[0], "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("writer %d", won); got.Info.Description != want {
		t.Errorf("stored revision is from %q, want %q", got.Info.Description, want)
	}
}

func testInvalid(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	noName := Release(ns[0], "", 1, release.StatusDeployed)
	noRev := Release(ns[0], "web", 0, release.StatusDeployed)
	for name, r := range map[string]*release.Release{"nil": nil, "no name": noName, "revision 0": noRev} {
		if err := s.Create(context.Background(), r); err == nil {
			t.Errorf("Create(%s) succeeded", name)
		}
		if err := s.Update(context.Background(), r); err == nil {
			t.Errorf("Update(%s) succeeded", name)
		}
	}
}

func testLarge(t *testing.T, s ports.ReleaseStore, ns [2]string) {
	r := Release(ns[0], "big", 1, release.StatusPendingInstall)
	data := make([]byte, largeRecordBytes)
	rand.New(rand.NewSource(1)).Read(data) // incompressible, so the record stays large
	r.Chart.Files = append(r.Chart.Files, &chart.File{Name: "blob.bin", Data: data})
	r.Manifest = strings.Repeat("# padding\n", 1000)
	mustCreate(t, s, r)
	got, err := s.Get(context.Background(), ns[0], "big", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	AssertSame(t, got, r)

	// Shrink it below the limit and grow it again: no chunk may go stale.
	small := Release(ns[0], "big", 1, release.StatusDeployed)
	if err := s.Update(context.Background(), small); err != nil {
		t.Fatalf("Update to small: %v", err)
	}
	if got, err = s.Get(context.Background(), ns[0], "big", 1); err != nil {
		t.Fatal(err)
	}
	AssertSame(t, got, small)
	r.Info.Status = release.StatusFailed
	if err := s.Update(context.Background(), r); err != nil {
		t.Fatalf("Update to large: %v", err)
	}
	h, err := s.History(context.Background(), ns[0], "big")
	if err != nil || len(h) != 1 {
		t.Fatalf("History = %d revisions, %v", len(h), err)
	}
	AssertSame(t, h[0], r)
	assertKeys(t, "list", listKeys(t, s, ports.ListQuery{Namespace: ns[0], Statuses: []release.Status{release.StatusFailed}}, ns), revKey{ns[0], "big", 1})
	if _, err := s.Delete(context.Background(), ns[0], "big", 1); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(context.Background(), ns[0], "big", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("Get after Delete = %v", err)
	}
}
