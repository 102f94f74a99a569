package pgserver

import "syscall"

// pdeathsig takes the server down with the test binary, however it ends.
func pdeathsig() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
