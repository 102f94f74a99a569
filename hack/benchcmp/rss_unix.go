//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKiB returns the peak resident set size of a finished process in KiB.
func maxRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024 // bytes there, KiB on Linux and the BSDs
	}
	return int64(ru.Maxrss)
}
