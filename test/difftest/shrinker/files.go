package shrinker

import (
	"context"

	"github.com/kubectl-chart/kubectl-chart/test/difftest/generator"
)

// filePasses are the passes over a case's or a sequence's generated files:
// whole files, then blocks of lines (a values key with its children, a
// template's document), then single lines.
func filePasses[T any](s *Shrinker[T], files func(*T) *[]generator.File) []Pass[T] {
	text := Text[T]{
		Count: func(c T) int { return len(*files(&c)) },
		Get:   func(c T, i int) string { return (*files(&c))[i].Data },
		Set:   func(c *T, i int, data string) { (*files(c))[i].Data = data },
	}
	dropFiles := func(ctx context.Context, c T) (T, bool) {
		return s.DropEach(ctx, c, text.Count, func(c *T, i int) {
			fs := files(c)
			*fs = append((*fs)[:i], (*fs)[i+1:]...)
		})
	}
	dropBlocks := func(ctx context.Context, c T) (T, bool) { return s.DropSpans(ctx, c, text, blockEnd) }
	dropLines := func(ctx context.Context, c T) (T, bool) { return s.DropLines(ctx, c, text) }
	return []Pass[T]{dropFiles, dropBlocks, dropLines}
}
