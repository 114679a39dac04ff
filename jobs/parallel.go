package jobs

import (
	"context"
	"runtime"
	"sync"
)

// storeWorkers is how many files publishing hashes, compresses and stores
// at once: hashing and compressing take CPU, storing waits for the store.
func storeWorkers() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// forEach calls fn for each item, on workers goroutines at once, until
// one returns an error or ctx ends; it returns that first error, or ctx's.
// fn's context ends when another call failed.
func forEach[T any](ctx context.Context, items []T, workers int, fn func(ctx context.Context, item T) error) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var first error
	next := make(chan T)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				if err := fn(ctx, it); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for _, it := range items {
		select {
		case next <- it:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return parent.Err()
}

// stampBook holds the stamps of a folder's files (fileStamp) for several
// goroutines at once: the hash of a file whose size and modification time
// are the stamp's is not computed again.
type stampBook struct {
	mu sync.Mutex
	m  map[string]fileStamp // nil: no stamps kept
}

// hash returns the hash of file name, of size bytes modified at mod (Unix
// nanoseconds): the stamp's when they match, else compute's, which it
// records.
func (b *stampBook) hash(name string, size, mod int64, compute func() (string, error)) (string, error) {
	b.mu.Lock()
	st, ok := b.m[name]
	b.mu.Unlock()
	if ok && st.Size == size && st.MTime == mod {
		return st.Hash, nil
	}
	h, err := compute()
	if err != nil || b.m == nil {
		return h, err
	}
	b.mu.Lock()
	b.m[name] = fileStamp{Size: size, MTime: mod, Hash: h}
	b.mu.Unlock()
	return h, nil
}

// keepOnly forgets the stamps of the files keep does not name.
func (b *stampBook) keepOnly(keep func(name string) bool) {
	for name := range b.m {
		if !keep(name) {
			delete(b.m, name)
		}
	}
}
