package shrinker

import (
	"context"
	"strings"
)

// Text reads and replaces the texts of a T's files, numbered 0..Count-1.
type Text[T any] struct {
	Count func(T) int
	Get   func(T, int) string
	Set   func(*T, int, string)
}

// DropSpans tries, in each file, c without the span of lines from each line
// to end(lines, i), keeping every drop that keeps the difference.
func (s *Shrinker[T]) DropSpans(ctx context.Context, c T, text Text[T], end func(lines []string, i int) int) (T, bool) {
	changed := false
	for fi := 0; fi < text.Count(c); fi++ {
		lines := strings.SplitAfter(text.Get(c, fi), "\n")
		for i := 0; i < len(lines); i++ {
			j := end(lines, i)
			if lines[i] == "" {
				continue
			}
			cand := s.clone(c)
			next := append(append([]string(nil), lines[:i]...), lines[j:]...)
			text.Set(&cand, fi, strings.Join(next, ""))
			if s.try(ctx, cand) {
				c, lines, changed = cand, next, true
				i--
			}
		}
	}
	return c, changed
}

// DropLines is DropSpans of single lines.
func (s *Shrinker[T]) DropLines(ctx context.Context, c T, text Text[T]) (T, bool) {
	return s.DropSpans(ctx, c, text, func(_ []string, i int) int { return i + 1 })
}

// blockEnd is the index after the last line of the block that starts at line i: the lines
// below it that are more indented than it (or blank).
func blockEnd(lines []string, i int) int {
	ind := Indent(lines[i])
	j := i + 1
	for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || Indent(lines[j]) > ind) {
		j++
	}
	return j
}

// Indent is the width of a line's leading blanks.
func Indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}
