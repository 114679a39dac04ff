package render

import (
	"sync"
	"sync/atomic"
)

// forEach calls fn with every i of [0, n) from at most workers goroutines,
// and returns the first error; after one, no call starts.
func forEach(n, workers int, fn func(i int) error) error {
	var (
		next  atomic.Int64
		first error
		once  sync.Once
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return first
}
