package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStopLeavesNoProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("sleep: %v", err)
	}
	for _, detach := range []bool{false, true} {
		c, err := startComponent("sleeper", sleep, []string{"300"}, nil, t.TempDir(), detach)
		if err != nil {
			t.Fatal(err)
		}
		r := c.record()
		if !running(r) {
			t.Fatalf("detach=%v: pid %d not seen running", detach, r.PID)
		}
		if err := c.stop(time.Second); err != nil {
			t.Fatal(err)
		}
		if running(r) {
			t.Errorf("detach=%v: pid %d still running after stop", detach, r.PID)
		}
	}
}

func TestStopRecordFallsBackToSIGKILL(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("sleep: %v", err)
	}
	// An ignored signal stays ignored across exec: this sleep shrugs off SIGTERM.
	c, err := startComponent("stubborn", sh, []string{"-c", "trap '' TERM; exec " + sleep + " 300"}, nil, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	r := c.record()
	r.Path = sleep
	deadline := time.Now().Add(5 * time.Second)
	for !running(r) {
		if time.Now().After(deadline) {
			t.Fatal("sleep never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := stopRecord(r, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Error("stopped before the grace period: SIGTERM was not ignored")
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("process not reaped after stopRecord")
	}
}

func TestRunningIgnoresAnotherBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self := record{Name: "self", PID: os.Getpid(), Path: exe}
	if !running(self) {
		t.Error("this test binary is not seen running")
	}
	other := self
	other.Path = filepath.Join(t.TempDir(), "etcd")
	if running(other) {
		t.Error("a PID running another binary is taken for the recorded one")
	}
}

func TestExitedShowsTheLog(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	c, err := startComponent("failing", sh, []string{"-c", "echo listen tcp: address already in use; exit 3"}, nil, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	<-c.done
	if msg := c.exited().Error(); !strings.Contains(msg, "address already in use") || !strings.Contains(msg, "exit status 3") {
		t.Errorf("exited() = %q, want the exit status and the log", msg)
	}
}

func TestLockFileExcludesAndHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "build.lock")
	unlock, err := lockFile(context.Background(), path, func() { t.Error("first lock waited") })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	waited := false
	if _, err := lockFile(ctx, path, func() { waited = true }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock: err = %v, want deadline exceeded", err)
	}
	if !waited {
		t.Error("second lock did not report waiting")
	}
	unlock()
	unlock2, err := lockFile(context.Background(), path, func() { t.Error("lock waited after unlock") })
	if err != nil {
		t.Fatal(err)
	}
	unlock2()
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	if ports[0] == ports[1] || ports[1] == ports[2] || ports[0] == ports[2] {
		t.Errorf("ports %v repeat", ports)
	}
}

func TestSweepEtcdDataKeepsWhatIsInUseOrNew(t *testing.T) {
	base := t.TempDir()
	stale := filepath.Join(base, "etcd-stale")
	fresh := filepath.Join(base, "etcd-fresh")
	used := filepath.Join(base, "etcd-used")
	old := time.Now().Add(-time.Hour)
	for _, dir := range []string{stale, fresh, used} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{stale, used} {
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	// A sleep whose command line names the directory, as etcd's would.
	c, err := startComponent("user", bash, []string{"-c", "exec -a --data-dir=" + used + " sleep 300"}, nil, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.stop(time.Second) })
	waitExe(t, c.cmd.Process.Pid)
	sweepEtcdData(filepath.Join(base, "etcd-*"))
	for dir, want := range map[string]bool{stale: false, fresh: true, used: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(dir), got, want)
		}
	}
}
