package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeBinaries stands a shell script in for every component.
func fakeBinaries(t *testing.T, script string) Binaries {
	t.Helper()
	dir := t.TempDir()
	bins := BinariesIn(dir)
	for _, f := range bins.files() {
		writeFile(t, f, "#!/bin/sh\n"+script+"\n")
		if err := os.Chmod(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bins
}

func TestStartReportsTheFailingComponentsLog(t *testing.T) {
	stateDir := t.TempDir()
	bins := fakeBinaries(t, `echo "etcd: data dir is broken" >&2; exit 2`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Start(ctx, Options{Binaries: bins, StateDir: stateDir})
	if err == nil {
		t.Fatal("Start succeeded with a failing etcd")
	}
	for _, want := range []string{"wait for etcd", "etcd exited", "exit status 2", "data dir is broken"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := os.Stat(filepath.Join(stateDir, stateFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left after a failed start: %v", err)
	}
}

func TestStartRetriesATakenPort(t *testing.T) {
	attempts := filepath.Join(t.TempDir(), "attempts")
	bins := fakeBinaries(t, `echo x >> `+attempts+`; echo "listen tcp 127.0.0.1:2379: bind: address already in use" >&2; exit 1`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Start(ctx, Options{Binaries: bins, StateDir: t.TempDir()}); err == nil {
		t.Fatal("Start succeeded with an etcd that cannot bind")
	}
	data, err := os.ReadFile(attempts)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "x"); n != 3 {
		t.Errorf("etcd started %d times, want 3", n)
	}
}

func TestStartRefusesARunningCluster(t *testing.T) {
	stateDir := t.TempDir()
	bins := fakeBinaries(t, `exec sleep 300`)
	c, err := startComponent("etcd", "/bin/sh", []string{bins.Etcd}, nil, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.stop(time.Second) })
	sleep := waitExe(t, c.cmd.Process.Pid)
	running := &Cluster{StateDir: stateDir, state: state{Processes: []record{{Name: "etcd", PID: c.cmd.Process.Pid, Path: sleep}}}}
	if err := running.saveState(); err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), Options{Binaries: bins, StateDir: stateDir})
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("Start over a running cluster: err = %v, want already running", err)
	}
	attached, err := Attach(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := attached.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop of an attached cluster left its process running")
	}
}

// waitExe waits until pid has exec'd into its final binary and returns it.
func waitExe(t *testing.T, pid int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
		if err == nil && filepath.Base(exe) == "sleep" {
			return exe
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("pid %d never ran sleep", pid)
	return ""
}
