package shrinker

import (
	"context"
	"slices"
	"testing"
)

// The loop runs its passes again until none drops anything: 3 can go only
// once 5 has gone, which the first round finds after trying 3.
func TestShrinkerRunsToAFixedPoint(t *testing.T) {
	keeps := func(_ context.Context, xs []int) bool {
		return slices.Contains(xs, 7) && (slices.Contains(xs, 3) || !slices.Contains(xs, 5))
	}
	tests := map[string]struct {
		budget int
		want   []int
	}{
		"enough runs":           {budget: 100, want: []int{7}},
		"a budget of one round": {budget: 3, want: []int{3, 7}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			in := []int{5, 3, 7}
			s := New(keeps, tt.budget, slices.Clone[[]int])
			drop := func(ctx context.Context, xs []int) ([]int, bool) {
				return s.DropEach(ctx, xs, func(xs []int) int { return len(xs) }, func(xs *[]int, i int) { *xs = slices.Delete(*xs, i, i+1) })
			}
			if got := s.Run(context.Background(), in, drop); !slices.Equal(got, tt.want) {
				t.Errorf("shrunk to %v, want %v", got, tt.want)
			}
			if !slices.Equal(in, []int{5, 3, 7}) {
				t.Errorf("the input changed: %v", in)
			}
		})
	}
}

func TestShrinkerStopsWhenTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tries := 0
	s := New(func(context.Context, []int) bool { tries++; return true }, 100, slices.Clone[[]int])
	drop := func(ctx context.Context, xs []int) ([]int, bool) {
		return s.DropEach(ctx, xs, func(xs []int) int { return len(xs) }, func(xs *[]int, i int) { *xs = slices.Delete(*xs, i, i+1) })
	}
	if got := s.Run(ctx, []int{1, 2}, drop); len(got) != 2 || tries != 0 {
		t.Errorf("shrunk to %v after %d tries with the context done", got, tries)
	}
}
