package runner

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

// allocateEnv makes this test binary, run as a helper process, allocate
// without end, as Helm does for a template that ranges until 2^63.
const allocateEnv = "DIFFTEST_ALLOCATE_FOREVER"

func TestHelperAllocateForever(t *testing.T) {
	if os.Getenv(allocateEnv) != "1" {
		t.Skip("helper process")
	}
	var keep [][]byte
	for len(keep) >= 0 {
		keep = append(keep, make([]byte, 64<<20))
	}
	t.Log(len(keep))
}

// Under the runner's memory limit a program that allocates without end
// stops in Go's out-of-memory error, and the render-budget rule takes
// ours, stopped by its render budget, for it.
func TestMemoryLimitEndsEndlessAllocation(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the memory limit is Linux's RLIMIT_AS")
	}
	if raceDetector {
		t.Skip("a race-detector binary cannot start under an address-space limit")
	}
	bin, args := WithMemoryLimit(1<<30, os.Args[0], []string{"-test.run=^TestHelperAllocateForever$"})
	helm, err := Exec(context.Background(), bin, args, t.TempDir(), append(os.Environ(), allocateEnv+"=1"), 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !helm.OutOfMemory || helm.Hung || helm.Exit == 0 {
		t.Fatalf("outcome %+v, want Go's out-of-memory error", helm)
	}
	ours := Outcome{Exit: 1, ErrLine: "Error: template: c/templates/t.yaml:1:3: render budget exceeded: until would build a value of 9223372036854775807 bytes, more than 268435456 (raise it with --render-max-value-bytes)"}
	if res := Compare(helm, ours); res.Differs() {
		t.Errorf("differs in %v, want the render-budget rule to apply", res.Aspects)
	}
}
