package action

import (
	"context"
	"sort"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestDeployedRevisionsReadEachReleaseOnce(t *testing.T) {
	ctx := context.Background()
	mem := memory.New()
	for _, r := range []*release.Release{
		porttest.Release("a", "web", 1, release.StatusSuperseded),
		porttest.Release("a", "web", 2, release.StatusDeployed),
		porttest.Release("a", "api", 1, release.StatusDeployed),
		porttest.Release("a", "api", 2, release.StatusFailed),
		porttest.Release("b", "db", 1, release.StatusPendingInstall),
		porttest.Release("b", "bad", 1, release.StatusDeployed),
	} {
		if err := mem.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	s := &porttest.LabelsOnlyStore{ReleaseStore: mem, Unreadable: "bad"}
	l := &Lifecycle{Store: s}
	revs, failed, err := l.deployedRevisions(ctx, DriftRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range revs {
		got = append(got, r.Namespace+"/"+r.Name+"@"+string(rune('0'+r.Version)))
	}
	sort.Strings(got)
	if want := []string{"a/api@1", "a/web@2"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("deployed revisions = %v, want %v", got, want)
	}
	if len(failed) != 1 || failed[0].Name != "bad" || failed[0].Namespace != "b" || failed[0].Err == nil {
		t.Errorf("failed = %+v, want release b/bad unreadable", failed)
	}
	// web and bad are read alone; api and db through their histories.
	if n := s.Gets.Load(); n != 2 {
		t.Errorf("%d single revisions read, want 2", n)
	}
}
