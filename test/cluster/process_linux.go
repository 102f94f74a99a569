package cluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
