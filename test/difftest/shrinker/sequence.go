package shrinker

import (
	"context"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

// SequenceKeeps reports whether a candidate sequence still shows the difference being shrunk.
type SequenceKeeps func(ctx context.Context, s generator.Sequence) bool

// SameSequenceDifference keeps the candidates that run shows the difference
// want shows (runner.SequenceResult.Signature).
func SameSequenceDifference(run func(context.Context, generator.Sequence) (runner.SequenceResult, error), want runner.SequenceResult) SequenceKeeps {
	sig := want.Signature()
	return func(ctx context.Context, s generator.Sequence) bool {
		res, err := run(ctx, s)
		return err == nil && res.Signature() == sig
	}
}

// ShrinkSequence returns the smallest sequence it finds for which keeps
// holds, trying at most budget candidates: it drops steps, then flags of
// steps, then files and lines of files.
func ShrinkSequence(ctx context.Context, seq generator.Sequence, keeps SequenceKeeps, budget int) generator.Sequence {
	s := &shrink[generator.Sequence]{keeps: keeps, budget: budget, clone: generator.Sequence.Clone,
		files: func(s *generator.Sequence) *[]generator.File { return &s.Files }}
	dropSteps := func(ctx context.Context, seq generator.Sequence) (generator.Sequence, bool) {
		return s.dropEach(ctx, seq, func(seq generator.Sequence) int { return len(seq.Steps) }, func(seq *generator.Sequence, i int) {
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
		return s.dropEach(ctx, seq, count, func(seq *generator.Sequence, i int) {
			for k, st := range seq.Steps {
				if i < len(st.Args)-1 {
					seq.Steps[k].Args = append(st.Args[:i+1], st.Args[i+2:]...)
					return
				}
				i -= len(st.Args) - 1
			}
		})
	}
	return s.run(ctx, seq, dropSteps, dropFlags)
}
