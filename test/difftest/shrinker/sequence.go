package shrinker

import (
	"context"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// ShrinkSequence returns the smallest sequence it finds for which keeps
// holds, trying at most budget candidates: it drops steps, then flags of
// steps, then files and lines of files.
func ShrinkSequence(ctx context.Context, seq generator.Sequence, keeps Keeps[generator.Sequence], budget int) generator.Sequence {
	s := New(keeps, budget, generator.Sequence.Clone)
	dropSteps := func(ctx context.Context, seq generator.Sequence) (generator.Sequence, bool) {
		return s.DropEach(ctx, seq, func(seq generator.Sequence) int { return len(seq.Steps) }, func(seq *generator.Sequence, i int) {
			seq.Steps = append(seq.Steps[:i], seq.Steps[i+1:]...)
		})
	}
	// Flags are numbered across the steps; never a step's command (group 0).
	dropFlags := func(ctx context.Context, seq generator.Sequence) (generator.Sequence, bool) {
		count := func(seq generator.Sequence) int {
			n := 0
			for _, st := range seq.Steps {
				n += len(st.Args) - 1
			}
			return n
		}
		return s.DropEach(ctx, seq, count, func(seq *generator.Sequence, i int) {
			for k, st := range seq.Steps {
				if i < len(st.Args)-1 {
					seq.Steps[k].Args = append(st.Args[:i+1], st.Args[i+2:]...)
					return
				}
				i -= len(st.Args) - 1
			}
		})
	}
	files := filePasses(s, func(s *generator.Sequence) *[]generator.File { return &s.Files })
	return s.Run(ctx, seq, append([]Pass[generator.Sequence]{dropSteps, dropFlags}, files...)...)
}
