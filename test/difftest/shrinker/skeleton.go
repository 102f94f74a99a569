package shrinker

import "context"

// Keeps reports whether a candidate still shows the difference being shrunk.
type Keeps[T any] func(ctx context.Context, c T) bool

// Signed is a run's result that names the difference it shows.
type Signed interface{ Signature() string }

// SameDifference keeps the candidates that run shows the difference want
// shows (its Signature), not merely some difference: a shrinker that kept
// any would drift from the difference found to another.
func SameDifference[T any, R Signed](run func(context.Context, T) (R, error), want R) Keeps[T] {
	sig := want.Signature()
	return func(ctx context.Context, c T) bool {
		res, err := run(ctx, c)
		return err == nil && res.Signature() == sig
	}
}

// Pass tries candidates smaller than c, keeping each one that keeps the
// difference; it returns the last kept and whether it kept any.
type Pass[T any] func(ctx context.Context, c T) (T, bool)

// Shrinker is the delta-debugging loop every difftest mode shares: passes
// try smaller candidates of a T (a case, a sequence, a stack), keep those
// that still show the difference, and run again until none keeps one (a
// fixed point) or the budget of candidates is spent.
type Shrinker[T any] struct {
	keeps  Keeps[T]
	budget int
	clone  func(T) T
}

// New is a shrinker trying at most budget candidates; clone copies a T deeply
// enough that changing the copy leaves the original alone.
func New[T any](keeps Keeps[T], budget int, clone func(T) T) *Shrinker[T] {
	return &Shrinker[T]{keeps: keeps, budget: budget, clone: clone}
}

// Run applies the passes in order until none changes anything.
func (s *Shrinker[T]) Run(ctx context.Context, c T, passes ...Pass[T]) T {
	cur := s.clone(c)
	for changed := true; changed && s.budget > 0 && ctx.Err() == nil; {
		changed = false
		for _, step := range passes {
			if next, ok := step(ctx, cur); ok {
				cur, changed = next, true
			}
		}
	}
	return cur
}

func (s *Shrinker[T]) try(ctx context.Context, c T) bool {
	if s.budget <= 0 || ctx.Err() != nil {
		return false
	}
	s.budget--
	return s.keeps(ctx, c)
}

// DropEach tries c without each of its n(c) parts, last first, and keeps
// every drop that keeps the difference: drop(c, i) removes part i, leaving
// the parts before it where they were.
func (s *Shrinker[T]) DropEach(ctx context.Context, c T, n func(T) int, drop func(*T, int)) (T, bool) {
	changed := false
	for i := n(c) - 1; i >= 0; i-- {
		cand := s.clone(c)
		drop(&cand, i)
		if s.try(ctx, cand) {
			c, changed = cand, true
		}
	}
	return c, changed
}
