// Package runner runs a generated case through Helm and through kubectl-chart in the same dialect
// and compares what a user or a script sees: stdout byte for byte, the exit status and the first
// error line of stderr (the program's name aside).
package runner

import (
	"bytes"
	"strings"
)

// Outcome is what one program did on one case.
type Outcome struct {
	Stdout  string
	Exit    int
	ErrLine string
	// Stderr is all of stderr; only sequences compare it.
	Stderr string
	// Crash holds the stderr of a Go runtime crash (panic, fatal error, stack overflow).
	Crash string
	// Hung is set when the program did not end within the runner's time limit.
	Hung bool
	// OutOfMemory is set when the Go runtime ended the program for want of
	// memory (under the runner's limit, see Runner.HelmMemory).
	OutOfMemory bool
}

// outOfMemory reports whether stderr shows the Go runtime's fatal
// out-of-memory error.
func outOfMemory(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("fatal error: out of memory")) || bytes.Contains(stderr, []byte("fatal error: runtime: out of memory"))
}

// firstErrorLine is the first line of stderr that reports an error, as Helm prints it.
func firstErrorLine(stderr []byte) string {
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(l, "Error: ") || strings.HasPrefix(l, "Error:") {
			return l
		}
	}
	return ""
}

// crashOf returns stderr when it shows a Go runtime crash.
func crashOf(stderr []byte) string {
	for _, m := range [][]byte{[]byte("\ngoroutine "), []byte("panic: "), []byte("fatal error: "), []byte("runtime: goroutine stack exceeds")} {
		if bytes.Contains(stderr, m) {
			const max = 4000
			if len(stderr) > max {
				return string(stderr[:max]) + "\n..."
			}
			return string(stderr)
		}
	}
	return ""
}
