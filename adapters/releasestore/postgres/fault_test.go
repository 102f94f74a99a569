package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/postgres"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

// Faults injected with triggers: a commit fails (a deferred constraint
// trigger raises at commit time) for releases named doomed*; the session is
// cut mid-transaction (it terminates itself) when a label cut=yes is
// written; deleting the labels of releases named halfdel* fails after their
// row was deleted: the ways Helm's driver loses or half-writes records
// (helm/helm#32394).
var faults = []string{
	`CREATE FUNCTION fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF (TG_OP = 'DELETE' AND OLD.name LIKE 'doomed%') OR (TG_OP <> 'DELETE' AND NEW.name LIKE 'doomed%') THEN
			RAISE EXCEPTION 'injected commit failure';
		END IF;
		RETURN NULL;
	END $$`,
	`CREATE CONSTRAINT TRIGGER fail_commit AFTER INSERT OR UPDATE OR DELETE ON releases_v1
		DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_commit()`,
	`CREATE FUNCTION cut_session() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF NEW.key = 'cut' THEN
			PERFORM pg_terminate_backend(pg_backend_pid());
			PERFORM pg_sleep(5);
		END IF;
		RETURN NEW;
	END $$`,
	`CREATE TRIGGER cut_session BEFORE INSERT ON custom_labels_v1 FOR EACH ROW EXECUTE FUNCTION cut_session()`,
	`CREATE FUNCTION fail_label_delete() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF OLD.releaseKey LIKE 'sh.helm.release.v1.halfdel%' THEN
			RAISE EXCEPTION 'injected label delete failure';
		END IF;
		RETURN OLD;
	END $$`,
	`CREATE TRIGGER fail_label_delete BEFORE DELETE ON custom_labels_v1 FOR EACH ROW EXECUTE FUNCTION fail_label_delete()`,
}

// faulty returns a store on a database with the faults installed, after
// creating the given revisions.
func faulty(t *testing.T, before ...*release.Release) (*postgres.Store, string) {
	t.Helper()
	dbURL := db.Database(t)
	s := open(t, dbURL)
	for _, r := range before {
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	execSQL(t, dbURL, faults...)
	return s, dbURL
}

// labelRows counts a revision's rows in custom_labels_v1.
func labelRows(t *testing.T, dbURL, name string, revision int) int {
	t.Helper()
	var n int
	c := connect(t, dbURL)
	if err := c.QueryRow(context.Background(), `SELECT count(*) FROM custom_labels_v1 WHERE releaseKey = $1`, fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, revision)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFailedCommitsAreReturnedAndWriteNothing(t *testing.T) {
	ctx := context.Background()
	old := porttest.Release("prod", "doomed-old", 1, release.StatusDeployed)
	s, dbURL := faulty(t, old)

	t.Run("create", func(t *testing.T) {
		err := s.Create(ctx, porttest.Release("prod", "doomed-new", 1, release.StatusDeployed))
		if !postgres.IsCommitError(err) || !strings.Contains(err.Error(), "injected commit failure") {
			t.Fatalf("Create = %v, want the commit's error", err)
		}
		if _, err := s.Get(ctx, "prod", "doomed-new", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
			t.Errorf("Get after the failed create = %v, want not found", err)
		}
		if n := labelRows(t, dbURL, "doomed-new", 1); n != 0 {
			t.Errorf("%d label rows left by the failed create", n)
		}
	})
	t.Run("update", func(t *testing.T) {
		changed := porttest.Release("prod", "doomed-old", 1, release.StatusFailed)
		changed.Labels = map[string]string{"team": "other"}
		if err := s.Update(ctx, changed); !postgres.IsCommitError(err) {
			t.Fatalf("Update = %v, want the commit's error", err)
		}
		got, err := s.Get(ctx, "prod", "doomed-old", 1)
		if err != nil {
			t.Fatal(err)
		}
		porttest.AssertSame(t, got, old)
	})
	t.Run("delete", func(t *testing.T) {
		if _, err := s.Delete(ctx, "prod", "doomed-old", 1); !postgres.IsCommitError(err) {
			t.Fatalf("Delete = %v, want the commit's error", err)
		}
		got, err := s.Get(ctx, "prod", "doomed-old", 1)
		if err != nil {
			t.Fatalf("Get after the failed delete: %v", err)
		}
		porttest.AssertSame(t, got, old)
	})
}

// A deletion whose second half fails deletes nothing.
func TestDeleteIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	want := porttest.Release("prod", "halfdel", 1, release.StatusDeployed)
	s, dbURL := faulty(t, want)
	if _, err := s.Delete(ctx, "prod", "halfdel", 1); err == nil || !strings.Contains(err.Error(), "injected label delete failure") {
		t.Fatalf("Delete = %v, want the labels' error", err)
	}
	got, err := s.Get(ctx, "prod", "halfdel", 1)
	if err != nil {
		t.Fatalf("Get after the failed delete: %v", err)
	}
	porttest.AssertSame(t, got, want)
	if n := labelRows(t, dbURL, "halfdel", 1); n != 1 {
		t.Errorf("%d label rows, want 1", n)
	}
}

// A session cut mid-transaction (after the row, while writing labels) is an
// error and leaves nothing; the store goes on with new sessions.
func TestSessionCutMidTransaction(t *testing.T) {
	ctx := context.Background()
	s, dbURL := faulty(t)
	r := porttest.Release("prod", "web", 1, release.StatusDeployed)
	r.Labels = map[string]string{"cut": "yes"}
	if err := s.Create(ctx, r); err == nil {
		t.Fatal("Create on a cut session succeeded")
	}
	if _, err := s.Get(ctx, "prod", "web", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Errorf("Get after the cut = %v, want not found", err)
	}
	if n := labelRows(t, dbURL, "web", 1); n != 0 {
		t.Errorf("%d label rows left", n)
	}
	if err := s.Create(ctx, porttest.Release("prod", "web", 1, release.StatusDeployed)); err != nil {
		t.Errorf("Create after the cut: %v", err)
	}
}

// Uninstalling a release that is not there leaves no transaction open
// (helm/helm#32471).
func TestDeleteOfMissingLeavesNoTransaction(t *testing.T) {
	ctx := context.Background()
	dbURL := db.Database(t)
	s := open(t, dbURL)
	for range 5 {
		if _, err := s.Delete(ctx, "prod", "none", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
			t.Fatalf("Delete = %v", err)
		}
	}
	var n int
	if err := connect(t, dbURL).QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d sessions idle in a transaction", n)
	}
}

// Writers racing a server restart: each write either happened whole (row and
// labels) or returned its error; none half-happened; the store works again
// once the server is back.
func TestServerRestartDuringWrites(t *testing.T) {
	ctx := context.Background()
	srv := db.Need(t)
	dbURL := db.Database(t)
	s := open(t, dbURL)
	const writers, revisions = 8, 15
	errs := make([][]error, writers)
	var wg sync.WaitGroup
	var done atomic.Int64
	for w := range writers {
		errs[w] = make([]error, revisions)
		wg.Go(func() {
			for rev := range revisions {
				r := porttest.Release("prod", fmt.Sprintf("w%d", w), rev+1, release.StatusDeployed)
				r.Labels = map[string]string{"a": "1", "b": "2", "c": "3"}
				errs[w][rev] = s.Create(ctx, r)
				done.Add(1)
			}
		})
	}
	for done.Load() < writers*revisions/4 {
		time.Sleep(time.Millisecond)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	// The pool's sessions died with the server: a write may fail once more.
	var err error
	for range 3 {
		if err = s.Create(ctx, porttest.Release("prod", "after", 1, release.StatusDeployed)); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("Create after the restart: %v", err)
	}
	failed := 0
	for w := range writers {
		for rev := range revisions {
			name, err := fmt.Sprintf("w%d", w), errs[w][rev]
			got, getErr := s.Get(ctx, "prod", name, rev+1)
			switch {
			case err == nil && getErr != nil:
				t.Errorf("%s v%d: created, then Get = %v", name, rev+1, getErr)
			case getErr == nil && len(got.Labels) != 3:
				t.Errorf("%s v%d: stored with labels %v, want all three", name, rev+1, got.Labels)
			case getErr != nil && !errors.Is(getErr, ports.ErrReleaseNotFound):
				t.Errorf("%s v%d: Get after the restart = %v", name, rev+1, getErr)
			case getErr != nil && labelRows(t, dbURL, name, rev+1) != 0:
				t.Errorf("%s v%d: label rows without their row", name, rev+1)
			}
			if err != nil {
				failed++
			}
		}
	}
	t.Logf("%d of %d creates failed across the restart, each with its error", failed, writers*revisions)
}
