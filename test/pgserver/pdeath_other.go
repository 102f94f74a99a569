//go:build unix && !linux

package pgserver

import "syscall"

func pdeathsig() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
