package postgres_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/postgres"
	"github.com/kubectl-chart/kubectl-chart/ports"
	"github.com/kubectl-chart/kubectl-chart/ports/porttest"
	"github.com/kubectl-chart/kubectl-chart/test/pgserver"
)

var db *pgserver.Shared

func TestMain(m *testing.M) { os.Exit(pgserver.Main(m, &db)) }

// open opens a store on url, closed after the test.
func open(t *testing.T, url string, opts ...postgres.Option) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url, opts...)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestContract(t *testing.T) {
	porttest.ReleaseStore(t, func(t *testing.T) (ports.ReleaseStore, [2]string) {
		return open(t, db.Database(t)), [2]string{"default", "prod"}
	})
}

func TestLockerContract(t *testing.T) {
	porttest.ReleaseLocker(t, func(t *testing.T, d time.Duration, clock ports.TickingClock) (ports.ReleaseLocker, [2]string) {
		return open(t, db.Database(t)).Locker(d, clock), [2]string{"apps", "other"}
	})
}

// On one host, the lock of a process that is gone is taken over at once,
// even while the server still holds its session; a running holder's is not.
func TestLockOfAGoneProcess(t *testing.T) {
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	porttest.LockOfAGoneProcess(t, open(t, db.Database(t)).Locker(time.Hour, ports.SystemClock{}), exited.Process.Pid)
}
