//go:build !linux

package cluster

import "syscall"

func sysProcAttr(detach bool) *syscall.SysProcAttr {
	// Without Pdeathsig, owned components rely on Stop being called.
	return &syscall.SysProcAttr{Setsid: detach}
}

// running reports whether r.PID is alive; without /proc it cannot tell a
// reused PID or an unreaped zombie apart.
func running(r record) bool {
	return syscall.Kill(r.PID, 0) == nil
}

// sweepEtcdData does nothing without /proc to tell which directories are in
// use.
func sweepEtcdData(string) {}
