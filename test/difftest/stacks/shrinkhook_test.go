package stacks

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/shrinker"
)

// shrinkHook shrinks the first DIFFTEST_STACKS_SHRINK differences of a run
// (default 2), each with at most DIFFTEST_STACKS_SHRINK_TRIES candidates
// (default 200), and stores each minimal case under DIFFTEST_STACKS_WRITE
// (default a fresh directory in $TMPDIR, kept).
type shrinkHook struct {
	r           Runner
	left, tries int
	dir         string
}

func newShrinkHook(t *testing.T, r Runner) *shrinkHook {
	t.Helper()
	return &shrinkHook{r: r, left: envInt(t, "DIFFTEST_STACKS_SHRINK", 2), tries: envInt(t, "DIFFTEST_STACKS_SHRINK_TRIES", 200),
		dir: os.Getenv("DIFFTEST_STACKS_WRITE")}
}

// report shrinks a difference while the budget lasts, stores the minimal
// case and returns it as a reproducer for the failure message.
func (h *shrinkHook) report(t *testing.T, name string, c Case, res Result) string {
	t.Helper()
	if h.left <= 0 {
		return "not shrunk (DIFFTEST_STACKS_SHRINK differences shrunk already); the case:\n" + c.String()
	}
	h.left--
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	small := Shrink(ctx, c, shrinker.SameDifference(h.r.Run, res), h.tries)
	again, err := h.r.Run(ctx, small)
	if err != nil || !again.Differs() {
		small, again = c, res
	}
	if h.dir == "" {
		dir, err := os.MkdirTemp("", "difftest-stacks-")
		if err != nil {
			t.Fatal(err)
		}
		h.dir = dir
	}
	stored, err := WriteReproducer(h.dir, name, small, again)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("shrunk to (%d of %d files; stored in %s):\n%s%s", len(small.Files), len(c.Files), stored, again.Describe(), small.String())
}
