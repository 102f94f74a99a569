// Package shrinker reduces a case that shows a difference to a minimal one that still shows it:
// it drops flags, files, blocks of lines (a values key with its children, a template's document)
// and single lines while the difference persists.
package shrinker

import (
	"context"
	"strings"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
	"github.com/kubectl-chart/kubectl-chart/test/difftest/runner"
)

// Keeps reports whether a candidate still shows the difference being shrunk.
type Keeps func(ctx context.Context, c generator.Case) bool

// SameDifference keeps the candidates that run shows the difference want
// shows (runner.Result.Signature), not merely some difference: a shrinker
// that kept any would drift from the difference found to another.
func SameDifference(run func(context.Context, generator.Case) (runner.Result, error), want runner.Result) Keeps {
	sig := want.Signature()
	return func(ctx context.Context, c generator.Case) bool {
		res, err := run(ctx, c)
		return err == nil && res.Signature() == sig
	}
}

// Shrink returns the smallest case it finds for which keeps holds, trying at most budget candidates.
func Shrink(ctx context.Context, c generator.Case, keeps Keeps, budget int) generator.Case {
	s := &shrink[generator.Case]{keeps: keeps, budget: budget, clone: generator.Case.Clone,
		files: func(c *generator.Case) *[]generator.File { return &c.Files }}
	// Flag groups go, never the command itself (group 0).
	dropArgs := func(ctx context.Context, c generator.Case) (generator.Case, bool) {
		return s.dropEach(ctx, c, func(c generator.Case) int { return len(c.Args) - 1 }, func(c *generator.Case, i int) {
			c.Args = append(c.Args[:i+1], c.Args[i+2:]...)
		})
	}
	return s.run(ctx, c, dropArgs)
}

// shrink tries candidates of a T (a case or a sequence) within its budget.
type shrink[T any] struct {
	keeps  func(context.Context, T) bool
	budget int
	clone  func(T) T
	// files points at a T's files.
	files func(*T) *[]generator.File
}

// run applies first, then the passes over files, until none changes anything.
func (s *shrink[T]) run(ctx context.Context, c T, first ...func(context.Context, T) (T, bool)) T {
	cur := s.clone(c)
	passes := append(first, s.dropFiles, s.dropBlocks, s.dropLines)
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

func (s *shrink[T]) try(ctx context.Context, c T) bool {
	if s.budget <= 0 || ctx.Err() != nil {
		return false
	}
	s.budget--
	return s.keeps(ctx, c)
}

// dropEach tries c without each of its n(c) parts, last first, and keeps
// every drop that keeps the difference.
func (s *shrink[T]) dropEach(ctx context.Context, c T, n func(T) int, drop func(*T, int)) (T, bool) {
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

func (s *shrink[T]) dropFiles(ctx context.Context, c T) (T, bool) {
	return s.dropEach(ctx, c, func(c T) int { return len(*s.files(&c)) }, func(c *T, i int) {
		fs := s.files(c)
		*fs = append((*fs)[:i], (*fs)[i+1:]...)
	})
}

// dropBlocks drops, in each file, a line together with the more indented lines below it.
func (s *shrink[T]) dropBlocks(ctx context.Context, c T) (T, bool) {
	return s.dropSpans(ctx, c, blockEnd)
}

func (s *shrink[T]) dropLines(ctx context.Context, c T) (T, bool) {
	return s.dropSpans(ctx, c, func(_ []string, i int) int { return i + 1 })
}

func (s *shrink[T]) dropSpans(ctx context.Context, c T, end func([]string, int) int) (T, bool) {
	changed := false
	for fi := range *s.files(&c) {
		lines := strings.SplitAfter((*s.files(&c))[fi].Data, "\n")
		for i := 0; i < len(lines); i++ {
			j := end(lines, i)
			if lines[i] == "" {
				continue
			}
			cand := s.clone(c)
			next := append(append([]string(nil), lines[:i]...), lines[j:]...)
			(*s.files(&cand))[fi].Data = strings.Join(next, "")
			if s.try(ctx, cand) {
				c, lines, changed = cand, next, true
				i--
			}
		}
	}
	return c, changed
}

// blockEnd is the index after the last line of the block that starts at line i: the lines
// below it that are more indented than it (or blank).
func blockEnd(lines []string, i int) int {
	ind := indent(lines[i])
	j := i + 1
	for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indent(lines[j]) > ind) {
		j++
	}
	return j
}

func indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}
