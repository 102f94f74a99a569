//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// hostileBound is how long one hostile input may keep the binary busy before the
// test counts it as a hang.
const hostileBound = 2 * time.Minute

// hostileAddressSpace is the address space the binary gets for one hostile input
// (prlimit --as), its bound on peak memory: a Go program reserves about 1.7 GiB of
// address space at start, which leaves well under a gigabyte to use, where the bombs
// would take several if they were read whole. (The peak resident size wait4 reports
// cannot serve: it counts the test process's own, from before the exec.)
const hostileAddressSpace = 2560 << 20

// TestHostileInputs runs the built binary on hostile inputs, one subtest per class,
// each under a memory cap and a time bound: none may crash, hang or write outside
// its target, and each is refused in the words the class's test names.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		// Minutes of the package's test time, most of it the templates' caps:
		// make check runs -short, make test runs every case.
		t.Skip("hostile inputs take minutes; make test runs them")
	}
	bin := buildBinary(t)
	t.Run("starters", func(t *testing.T) { hostileStarters(t, bin) })
	t.Run("second signal", func(t *testing.T) { secondSignalEndsABlockedRun(t, bin) })
	t.Run("archives", func(t *testing.T) { hostileArchives(t, bin) })
	t.Run("credentials", func(t *testing.T) { hostileCredentials(t, bin) })
	t.Run("values", func(t *testing.T) { hostileValues(t, bin) })
	t.Run("paths", func(t *testing.T) { hostilePaths(t, bin) })
	t.Run("terminal", func(t *testing.T) { hostileTerminal(t, bin) })
	t.Run("schemas", func(t *testing.T) { hostileSchemas(t, bin) })
	t.Run("templates", func(t *testing.T) { hostileTemplates(t, bin) })
}

// hostileRun is what one run of the binary did.
type hostileRun struct {
	stdout, stderr string
	exit           int
}

// buildBinary builds kubectl-chart once for a test and its subtests.
func buildBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("hostile inputs run the binary under prlimit, which is Linux's")
	}
	bin := filepath.Join(t.TempDir(), "kubectl-chart")
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runHostile runs the binary with args under an address-space cap (prlimit --as),
// in dir, with HOME and the XDG directories inside dir, and kills it when it uses more.
func runHostile(t *testing.T, bin, dir string, args ...string) hostileRun {
	t.Helper()
	// util-linux's prlimit enforces the memory cap of hostile inputs.
	prlimit := prereq.Command(t, "prlimit")
	ctx, cancel := context.WithTimeout(t.Context(), hostileBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, prlimit, append([]string{"--as=" + strconv.FormatInt(hostileAddressSpace, 10), "--", bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "XDG_DATA_HOME="+filepath.Join(dir, ".data"),
		"HELM_CONFIG_HOME=", "HELM_CACHE_HOME=", "HELM_DATA_HOME=", "HELM_REPOSITORY_CONFIG=", "HELM_REPOSITORY_CACHE=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: still running after %s (a hang)", strings.Join(args, " "), hostileBound)
	}
	run := hostileRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %s: %v", strings.Join(args, " "), err)
	}
	run.exit = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("%s: killed by %s\nstderr: %s", strings.Join(args, " "), ws.Signal(), run.stderr)
	}
	if strings.Contains(run.stderr, "panic:") || strings.Contains(run.stderr, "fatal error:") {
		t.Fatalf("%s: crashed:\n%s", strings.Join(args, " "), run.stderr)
	}
	return run
}

// wantRefusal checks that a run ended with status 1 and exactly the error want.
func wantRefusal(t *testing.T, run hostileRun, want string) {
	t.Helper()
	if run.exit != 1 || run.stderr != "Error: "+want+"\n" {
		t.Fatalf("exit %d, stderr %q; want exit 1 and %q", run.exit, run.stderr, "Error: "+want+"\n")
	}
}
