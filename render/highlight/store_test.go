package highlight

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestCacheCodeStore keeps highlighted code in a cache folder, adds to it,
// and leaves out what a build that rendered every page did not use.
func TestCacheCodeStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := func(n int) string { return "go\x00\x00// TestCacheCodeStore " + strconv.Itoa(n) }
	html := func(n int) string { return "<span>" + strconv.Itoa(n) + "</span>" }
	lookup := func(cs *Store, n int) bool {
		t.Helper()
		got, ok := cs.lookup(hashCode(key(n)))
		if ok && got != html(n) {
			t.Fatalf("block %d: %q", n, got)
		}
		return ok
	}

	cs := NewStore(dir, Index{})
	cs.record(key(1), html(1))
	cs.record(key(2), html(2))
	first := cs.Save(true)
	cs = NewStore(dir, first)
	if !lookup(cs, 1) || !lookup(cs, 2) || lookup(cs, 3) {
		t.Fatal("blocks not kept")
	}

	cs.record(key(3), html(3))
	second := cs.Save(false)
	if second.File != first.File {
		t.Fatal("a build that reused pages wrote a new file")
	}
	cs = NewStore(dir, second)
	if !lookup(cs, 1) || !lookup(cs, 3) {
		t.Fatal("blocks not kept after an addition")
	}

	// A build that rendered every page used blocks 1 and 3 only.
	third := cs.Save(true)
	if third.File == second.File {
		t.Fatal("a build that rendered every page appended to the file")
	}
	cs = NewStore(dir, third)
	if !lookup(cs, 1) || !lookup(cs, 3) || lookup(cs, 2) {
		t.Fatal("a build that rendered every page did not leave out the block it did not use")
	}

	// A damaged file is a miss, never other HTML.
	name := filepath.Join(dir, third.File)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, bytes.Repeat([]byte("x"), len(data)), 0o644); err != nil {
		t.Fatal(err)
	}
	if cs = NewStore(dir, third); lookup(cs, 1) || lookup(cs, 3) {
		t.Fatal("a damaged file gave a block")
	}
}
