// Package parallel runs independent calls on a bounded number of goroutines.
package parallel

import "sync"

// Do calls fn(i) for every i in [0, n) on at most workers goroutines
// and returns when all calls have.
func Do(n, workers int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
