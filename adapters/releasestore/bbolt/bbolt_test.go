package bbolt_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/bbolt"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
)

func TestContract(t *testing.T) {
	porttest.ReleaseStore(t, func(t *testing.T) (ports.ReleaseStore, [2]string) {
		return bbolt.New(filepath.Join(t.TempDir(), "sub", "releases.db"), 0), [2]string{"default", "prod"}
	})
}

func TestRecordsSurviveReopening(t *testing.T) {
	path := filepath.Join(t.TempDir(), "releases.db")
	want := porttest.Release("prod", "web", 1, release.StatusDeployed)
	if err := bbolt.New(path, 0).Create(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	got, err := bbolt.New(path, 0).Get(context.Background(), "prod", "web", 1)
	if err != nil {
		t.Fatal(err)
	}
	porttest.AssertSame(t, got, want)
}

func TestReadingAMissingFileIsEmpty(t *testing.T) {
	s := bbolt.New(filepath.Join(t.TempDir(), "none.db"), 0)
	res, err := s.List(context.Background(), ports.ListQuery{})
	if err != nil || len(res.Releases) != 0 {
		t.Fatalf("List = %+v, %v", res, err)
	}
	if _, err := s.Get(context.Background(), "prod", "web", 1); !errors.Is(err, ports.ErrReleaseNotFound) {
		t.Fatalf("Get = %v", err)
	}
}

func TestAnotherHolderGivesAClearErrorAfterTheTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "releases.db")
	s := bbolt.New(path, 200*time.Millisecond)
	if err := s.Create(context.Background(), porttest.Release("prod", "web", 1, release.StatusDeployed)); err != nil {
		t.Fatal(err)
	}
	// Another process holding the file: bbolt's exclusive flock.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done := make(chan error, 1)
	go func() {
		done <- s.Create(context.Background(), porttest.Release("prod", "web", 2, release.StatusDeployed))
	}()
	select {
	case err := <-done:
		if !errors.Is(err, bbolt.ErrBusy) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Create while locked = %v, want ErrBusy naming the file", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Create hung on the locked file")
	}
}

func TestLockerContract(t *testing.T) {
	porttest.ReleaseLocker(t, func(t *testing.T, d time.Duration, clock ports.TickingClock) (ports.ReleaseLocker, [2]string) {
		return bbolt.New(filepath.Join(t.TempDir(), "releases.db"), 0).Locker(d, clock), [2]string{"apps", "other"}
	})
}

// On one host, the lock of a process that is gone is taken over at once; a
// running holder's is not.
func TestLockOfAGoneProcess(t *testing.T) {
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	porttest.LockOfAGoneProcess(t, bbolt.New(filepath.Join(t.TempDir(), "releases.db"), 0).Locker(time.Hour, ports.SystemClock{}), exited.Process.Pid)
}
