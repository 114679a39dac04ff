package jobs

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The worker's build caches stay within their bound: the projects built
// least recently (by their stamps, written by every finished build) go
// first, but never the project just built nor one being built; a cache
// left unfinished (no stamps) is not counted, its next update empties it.
func TestTrimBuildCaches(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	cache := func(id string, size int64, builtAgo time.Duration, finished bool) {
		dir := filepath.Join(root, id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, cacheSize), []byte(strconv.FormatInt(size, 10)), 0o600)
		if finished {
			p := filepath.Join(dir, cacheStamps)
			os.WriteFile(p, []byte("{}"), 0o600)
			os.Chtimes(p, now.Add(-builtAgo), now.Add(-builtAgo))
		}
	}
	cache("prj_old", 400, 3*time.Hour, true)
	cache("prj_busy", 400, 2*time.Hour, true)
	cache("prj_mid", 400, time.Hour, true)
	cache("prj_new", 400, time.Minute, true)
	cache("prj_unfinished", 4000, 4*time.Hour, false)
	mu, _ := locks.LoadOrStore("prj_busy", new(sync.Mutex))
	mu.(*sync.Mutex).Lock() // an update of this process builds it
	defer mu.(*sync.Mutex).Unlock()

	trimBuildCaches(root, 1200, "prj_old") // prj_old was just built: kept
	for id, want := range map[string]bool{"prj_old": true, "prj_busy": true, "prj_mid": false, "prj_new": true, "prj_unfinished": true} {
		_, err := os.Stat(filepath.Join(root, id))
		if got := err == nil; got != want {
			t.Errorf("%s kept = %v, want %v", id, got, want)
		}
	}
}
