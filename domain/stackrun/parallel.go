package stackrun

import (
	"context"
	"sync"
)

// forEach runs fn for 0..n-1, at most limit at once (0: all at once).
func forEach(ctx context.Context, n, limit int, fn func(context.Context, int)) {
	if limit <= 0 || limit > n {
		limit = n
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for range limit {
		wg.Go(func() {
			for i := range work {
				fn(ctx, i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}
