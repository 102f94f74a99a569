package migrate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/memory"
	"github.com/kubectl-chart/kubectl-chart/domain/migrate"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func seed(t *testing.T, s ports.ReleaseStore, rels ...*release.Release) {
	t.Helper()
	for _, r := range rels {
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCopy(t *testing.T) {
	ctx := context.Background()
	from := memory.New()
	seed(t, from,
		porttest.Release("prod", "web", 1, release.StatusSuperseded),
		porttest.Release("prod", "web", 2, release.StatusDeployed),
		porttest.Release("prod", "db", 1, release.StatusFailed),
		porttest.Release("dev", "web", 1, release.StatusDeployed),
	)
	tests := map[string]struct {
		namespace string
		want      migrate.Report
	}{
		"one namespace":  {"prod", migrate.Report{Releases: 2, Copied: 3}},
		"all namespaces": {"", migrate.Report{Releases: 3, Copied: 4}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			to := memory.New()
			rep, err := migrate.Copy(ctx, from, to, tc.namespace)
			if err != nil || rep != tc.want {
				t.Fatalf("Copy = %+v, %v; want %+v", rep, err, tc.want)
			}
			got, err := to.Get(ctx, "prod", "web", 2)
			if err != nil {
				t.Fatal(err)
			}
			porttest.AssertSame(t, got, porttest.Release("prod", "web", 2, release.StatusDeployed))
			// Again: nothing to copy, all verified.
			again, err := migrate.Copy(ctx, from, to, tc.namespace)
			if want := (migrate.Report{Releases: tc.want.Releases, Present: tc.want.Copied}); err != nil || again != want {
				t.Errorf("second Copy = %+v, %v; want %+v", again, err, want)
			}
		})
	}
}

func TestCopyNeverOverwrites(t *testing.T) {
	ctx := context.Background()
	from, to := memory.New(), memory.New()
	seed(t, from, porttest.Release("prod", "web", 1, release.StatusDeployed))
	seed(t, to, porttest.Release("prod", "web", 1, release.StatusFailed))
	_, err := migrate.Copy(ctx, from, to, "prod")
	if !errors.Is(err, migrate.ErrDiffers) || !strings.Contains(err.Error(), "prod/web revision 1") {
		t.Fatalf("Copy = %v, want ErrDiffers naming the revision", err)
	}
	got, _ := to.Get(ctx, "prod", "web", 1)
	if got.Info.Status != release.StatusFailed {
		t.Error("the destination's revision was overwritten")
	}
}

// unreadable is a store whose listing reports an unreadable record.
type unreadable struct{ ports.ReleaseStore }

func (u unreadable) List(ctx context.Context, q ports.ListQuery) (ports.ListResult, error) {
	res, err := u.ReleaseStore.List(ctx, q)
	res.Problems = append(res.Problems, ports.RecordError{Object: "secret prod/sh.helm.release.v1.bad.v1", Err: errors.New("decode base64")})
	return res, err
}

func TestCopyRefusesAnUnreadableSource(t *testing.T) {
	from, to := memory.New(), memory.New()
	seed(t, from, porttest.Release("prod", "web", 1, release.StatusDeployed))
	_, err := migrate.Copy(context.Background(), unreadable{from}, to, "")
	if !errors.Is(err, migrate.ErrUnreadable) || !strings.Contains(err.Error(), "sh.helm.release.v1.bad.v1") {
		t.Fatalf("Copy = %v, want ErrUnreadable naming the record", err)
	}
	if res, _ := to.List(context.Background(), ports.ListQuery{}); len(res.Releases) != 0 {
		t.Error("something was copied")
	}
}
