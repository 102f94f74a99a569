//go:build e2e

package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// Messages by which an operation is refused because another one runs.
const (
	lockedMsg     = "is locked by"
	inProgressMsg = "another operation (install/upgrade/rollback) is in progress"
)

// upgrade runs one upgrade of ours and returns its exit code and output.
func (r *runner) upgrade(ns, rel, message string) (int, string) {
	cmd := r.command(bin, "upgrade", rel, chartDir(), "-n", ns, "--set", "message="+message, "--history-max", "0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	case err != nil:
		return -1, err.Error()
	}
	return 0, out.String()
}

func refused(out string) bool {
	return strings.Contains(out, lockedMsg) || strings.Contains(out, inProgressMsg)
}

// Four processes upgrade one release 25 times each, retrying when refused:
// the lock in the database serialises them, so every upgrade is one revision,
// none is lost or duplicated, and exactly the last one is deployed.
func TestConcurrentUpgrades(t *testing.T) {
	t.Parallel()
	const procs, per = 4, 25
	r := newRunner(t, "", db.Database(t))
	ns := env.Namespace(t)
	r.kc("install", "race", chartDir(), "-n", ns, "--set", "message=install")

	var mu sync.Mutex
	var failures []string
	refusals := 0
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			for n := range per {
				msg := fmt.Sprintf("p%d-%d", p, n)
				for {
					code, out := r.upgrade(ns, "race", msg)
					if code == 0 {
						break
					}
					mu.Lock()
					if !refused(out) {
						failures = append(failures, fmt.Sprintf("upgrade %s: exit %d: %s", msg, code, out))
						mu.Unlock()
						return
					}
					refusals++
					mu.Unlock()
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	h := history(t, r.url, ns, "race")
	if want := 1 + procs*per; len(h) != want {
		t.Errorf("%d revisions, want %d", len(h), want)
	}
	seen := map[string]int{}
	deployed := 0
	for i, rev := range h {
		if rev.Version != i+1 {
			t.Errorf("revision %d at position %d: a revision is missing or doubled", rev.Version, i+1)
		}
		msg, _ := rev.Config["message"].(string)
		if i > 0 {
			seen[msg]++
		}
		switch rev.Info.Status {
		case release.StatusDeployed:
			deployed++
			if i != len(h)-1 {
				t.Errorf("revision %d is deployed, but is not the last", rev.Version)
			}
		case release.StatusSuperseded:
		default:
			t.Errorf("revision %d is %s", rev.Version, rev.Info.Status)
		}
	}
	if deployed != 1 {
		t.Errorf("%d revisions deployed, want 1", deployed)
	}
	for p := range procs {
		for n := range per {
			if msg := fmt.Sprintf("p%d-%d", p, n); seen[msg] != 1 {
				t.Errorf("upgrade %s is in %d revisions, want 1", msg, seen[msg])
			}
		}
	}
	t.Logf("%d upgrades by %d processes; %d refusals retried", procs*per, procs, refusals)
}

// An upgrade killed (SIGKILL) while it holds the release's lock leaves the
// lock with its connection: the next upgrade proceeds at once, recovers what
// the killed one left pending, and exactly one revision is deployed.
func TestKilledUpgradeReleasesItsLock(t *testing.T) {
	t.Parallel()
	url := db.Database(t)
	r := newRunner(t, "", url)
	ns := env.Namespace(t)
	r.kc("install", "crash", chartDir(), "-n", ns, "--set", "message=install")
	ctx := context.Background()
	watch, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)

	killed := false
	for attempt := 0; attempt < 20 && !killed; attempt++ {
		cmd := r.command(bin, "upgrade", "crash", chartDir(), "-n", ns, "--set", fmt.Sprintf("message=killed-%d", attempt), "--history-max", "0")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		killed = killWhileLocked(ctx, t, watch, ns, "crash", cmd, done)
		<-done
	}
	if !killed {
		t.Fatal("no upgrade was caught holding its lock in 20 attempts")
	}
	// At once: no refusal, no waiting for a lease to expire.
	start := time.Now()
	if code, out := r.upgrade(ns, "crash", "after"); code != 0 {
		t.Fatalf("the upgrade after the kill: exit %d: %s", code, out)
	}
	t.Logf("the upgrade after the kill took %s", time.Since(start).Round(time.Millisecond))
	h := history(t, url, ns, "crash")
	deployed := 0
	for _, rev := range h {
		if rev.Info.Status == release.StatusDeployed {
			deployed++
		}
		if rev.Info.Status.IsPending() {
			t.Errorf("revision %d is left %s", rev.Version, rev.Info.Status)
		}
	}
	if last := h[len(h)-1]; deployed != 1 || last.Info.Status != release.StatusDeployed || last.Config["message"] != "after" {
		t.Errorf("%d deployed; last revision %d is %s with %v", deployed, last.Version, last.Info.Status, last.Config["message"])
	}
}

// killWhileLocked polls the lock table until the process's row shows it
// holds the release's lock, then kills it; false when it ended first.
func killWhileLocked(ctx context.Context, t *testing.T, c *pgx.Conn, ns, name string, cmd *exec.Cmd, done <-chan struct{}) bool {
	t.Helper()
	for {
		select {
		case <-done:
			return false
		default:
		}
		var n int
		err := c.QueryRow(ctx, `SELECT count(*) FROM kubectl_chart_locks_v1 WHERE namespace = $1 AND name = $2 AND (holder->>'PID')::int = $3`, ns, name, cmd.Process.Pid).Scan(&n)
		if err != nil && !strings.Contains(err.Error(), "does not exist") {
			t.Fatal(err)
		}
		if n > 0 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			return true
		}
		time.Sleep(time.Millisecond)
	}
}
