package cluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func sysProcAttr(detach bool) *syscall.SysProcAttr {
	if detach {
		return &syscall.SysProcAttr{Setsid: true}
	}
	// If the test binary is killed (a timeout, ^C, SIGKILL) the kernel
	// takes the control plane down with it.
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// running reports whether r.PID is alive and still runs r.Path. A zombie
// counts as gone: it is dead, only not yet reaped by its new parent.
func running(r record) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.PID))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may
	// itself contain spaces or parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
		return false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", r.PID))
	if err != nil {
		// Not ours to inspect (another user): trust the PID.
		return true
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	if exe == r.Path {
		return true
	}
	resolved, err := filepath.EvalSymlinks(r.Path)
	return err == nil && exe == resolved
}

// sweepEtcdData removes etcd data directories (pattern, on tmpfs) that no
// running process names on its command line: a control plane killed along
// with its test binary cannot clean up, and tmpfs holds the space in memory.
// Directories younger than a minute may belong to a start in progress.
func sweepEtcdData(pattern string) {
	dirs, err := filepath.Glob(pattern)
	if err != nil || len(dirs) == 0 {
		return
	}
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return
	}
	inUse := map[string]bool{}
	for _, path := range cmdlines {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, arg := range bytes.Split(data, []byte{0}) {
			if dir, ok := bytes.CutPrefix(arg, []byte("--data-dir=")); ok {
				inUse[string(dir)] = true
			}
		}
	}
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil || inUse[dir] || time.Since(fi.ModTime()) < time.Minute {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}
