//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// hostileStarters runs `create --starter` on starters holding a FIFO and huge
// files: each is refused by name, without blocking and without reading it.
func hostileStarters(t *testing.T, bin string) {
	tests := map[string]struct {
		setup   func(t *testing.T, starter string)
		wantErr string
	}{
		"fifo": {
			setup: func(t *testing.T, starter string) {
				if err := syscall.Mkfifo(filepath.Join(starter, "templates", "pipe.yaml"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "cannot load irregular file templates/pipe.yaml as it has file mode type bits set",
		},
		"6 MB file": {
			setup:   func(t *testing.T, starter string) { sparse(t, filepath.Join(starter, "big.bin"), 6<<20) },
			wantErr: `starter file "big.bin" is larger than the maximum file size 5242880`,
		},
		"1.5 GB file": {
			setup: func(t *testing.T, starter string) {
				sparse(t, filepath.Join(starter, "templates", "huge.yaml"), 1500<<20)
			},
			wantErr: `starter file "templates/huge.yaml" is larger than the maximum file size 5242880`,
		},
		"over 100 MiB in all": {
			setup: func(t *testing.T, starter string) {
				for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u"} {
					sparse(t, filepath.Join(starter, "files", n), 5<<20)
				}
			},
			wantErr: "starter is larger than the maximum size 104857600",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			starter := filepath.Join(dir, "starter")
			writeFiles(t, starter, map[string]string{"Chart.yaml": "apiVersion: v2\nname: <CHARTNAME>\nversion: 0.1.0\n", "templates/cm.yaml": "kind: ConfigMap\n", "files/.keep": ""})
			tt.setup(t, starter)
			run := runHostile(t, bin, dir, "create", "--starter", starter, "mychart")
			wantRefusal(t, run, tt.wantErr)
			if _, err := os.Stat(filepath.Join(dir, "mychart")); !os.IsNotExist(err) {
				t.Errorf("a refused starter still made the chart directory: %v", err)
			}
		})
	}
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(t *testing.T, name string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// secondSignalEndsABlockedRun blocks the binary on a values file that is a FIFO
// nobody writes to (as `-f <(...)` can): the first SIGTERM cancels the operation,
// which cannot stop a blocked read, and the second one must end the process.
func secondSignalEndsABlockedRun(t *testing.T, bin string) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"})
	fifo := filepath.Join(dir, "values.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "template", filepath.Join(dir, "c"), "-f", fifo)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Opening the FIFO's other end returns once the binary has opened it to
	// read; the end stays open and nothing is written, so its read blocks.
	// Should the binary never open it, a reader of our own ends the wait.
	opened := make(chan *os.File, 1)
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			opened <- w
		}
	}()
	t.Cleanup(func() {
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = r.Close()
		}
	})
	select {
	case w := <-opened:
		defer func() { _ = w.Close() }()
	case err := <-done:
		t.Fatalf("the run ended before it read the FIFO: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// A signal sent before the first was handled merges with it, and nothing
	// outside marks the first handled: SIGTERM is sent again, as an impatient
	// user would, until the process ends (the event waited for).
	bound := time.After(hostileBound)
	resend := time.NewTicker(50 * time.Millisecond)
	defer resend.Stop()
	for {
		select {
		case <-done:
			if cmd.ProcessState.Success() {
				t.Fatal("a run blocked on a FIFO succeeded")
			}
			return
		case <-resend.C:
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-bound:
			_ = cmd.Process.Kill()
			t.Fatal("repeated SIGTERMs did not end a run blocked on a FIFO")
		}
	}
}
