// Package shrinker reduces a difference the differential tester found to a
// minimal one that still shows it. One delta-debugging loop (Shrinker) serves
// every mode: generated cases (Shrink) drop flags, files, blocks of lines and
// single lines; release-command sequences (ShrinkSequence) drop steps and
// flags first; the stack mode (test/difftest/stacks) brings its own passes.
package shrinker

import (
	"context"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// Shrink returns the smallest case it finds for which keeps holds, trying at most budget candidates.
func Shrink(ctx context.Context, c generator.Case, keeps Keeps[generator.Case], budget int) generator.Case {
	s := New(keeps, budget, generator.Case.Clone)
	// Flag groups go, never the command itself (group 0).
	dropArgs := func(ctx context.Context, c generator.Case) (generator.Case, bool) {
		return s.DropEach(ctx, c, func(c generator.Case) int { return len(c.Args) - 1 }, func(c *generator.Case, i int) {
			c.Args = append(c.Args[:i+1], c.Args[i+2:]...)
		})
	}
	files := filePasses(s, func(c *generator.Case) *[]generator.File { return &c.Files })
	return s.Run(ctx, c, append([]Pass[generator.Case]{dropArgs}, files...)...)
}
