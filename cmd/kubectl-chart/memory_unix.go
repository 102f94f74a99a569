//go:build unix

package main

import "syscall"

// addressSpaceLimit is the process's address-space limit (ulimit -v), 0 when
// it cannot be read.
func addressSpaceLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return 0
	}
	return rl.Cur
}
