package parallel_test

import (
	"sync/atomic"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/internal/parallel"
)

// Every index is called once, on at most the workers given.
func TestDo(t *testing.T) {
	for name, tc := range map[string]struct{ n, workers int }{
		"more calls than workers": {n: 100, workers: 3},
		"fewer calls":             {n: 2, workers: 8},
		"none":                    {n: 0, workers: 4},
	} {
		t.Run(name, func(t *testing.T) {
			calls := make([]atomic.Int32, tc.n)
			var running, most atomic.Int32
			parallel.Do(tc.n, tc.workers, func(i int) {
				now := running.Add(1)
				for {
					m := most.Load()
					if now <= m || most.CompareAndSwap(m, now) {
						break
					}
				}
				calls[i].Add(1)
				running.Add(-1)
			})
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Errorf("index %d called %d times", i, c)
				}
			}
			if m := most.Load(); int(m) > tc.workers {
				t.Errorf("%d calls at once, more than %d workers", m, tc.workers)
			}
		})
	}
}
