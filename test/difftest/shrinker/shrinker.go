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
	s := shrink{keeps: keeps, budget: budget}
	cur := c.Clone()
	for changed := true; changed && s.budget > 0 && ctx.Err() == nil; {
		changed = false
		for _, step := range []func(context.Context, generator.Case) (generator.Case, bool){s.dropArgs, s.dropFiles, s.dropBlocks, s.dropLines} {
			if next, ok := step(ctx, cur); ok {
				cur, changed = next, true
			}
		}
	}
	return cur
}

type shrink struct {
	keeps  Keeps
	budget int
}

func (s *shrink) try(ctx context.Context, c generator.Case) bool {
	if s.budget <= 0 || ctx.Err() != nil {
		return false
	}
	s.budget--
	return s.keeps(ctx, c)
}

// dropArgs drops flag groups (never the command itself).
func (s *shrink) dropArgs(ctx context.Context, c generator.Case) (generator.Case, bool) {
	changed := false
	for i := len(c.Args) - 1; i >= 1; i-- {
		cand := c.Clone()
		cand.Args = append(cand.Args[:i], cand.Args[i+1:]...)
		if s.try(ctx, cand) {
			c, changed = cand, true
		}
	}
	return c, changed
}

func (s *shrink) dropFiles(ctx context.Context, c generator.Case) (generator.Case, bool) {
	changed := false
	for i := len(c.Files) - 1; i >= 0; i-- {
		cand := c.Clone()
		cand.Files = append(cand.Files[:i], cand.Files[i+1:]...)
		if s.try(ctx, cand) {
			c, changed = cand, true
		}
	}
	return c, changed
}

// dropBlocks drops, in each file, a line together with the more indented lines below it.
func (s *shrink) dropBlocks(ctx context.Context, c generator.Case) (generator.Case, bool) {
	return s.dropSpans(ctx, c, blockEnd)
}

func (s *shrink) dropLines(ctx context.Context, c generator.Case) (generator.Case, bool) {
	return s.dropSpans(ctx, c, func(_ []string, i int) int { return i + 1 })
}

func (s *shrink) dropSpans(ctx context.Context, c generator.Case, end func([]string, int) int) (generator.Case, bool) {
	changed := false
	for fi := range c.Files {
		lines := strings.SplitAfter(c.Files[fi].Data, "\n")
		for i := 0; i < len(lines); i++ {
			j := end(lines, i)
			if lines[i] == "" {
				continue
			}
			cand := c.Clone()
			next := append(append([]string(nil), lines[:i]...), lines[j:]...)
			cand.Files[fi].Data = strings.Join(next, "")
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
