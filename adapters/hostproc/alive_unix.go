//go:build unix

package hostproc

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with pid runs on this host. A process that
// exists but belongs to someone else answers EPERM: it runs.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
