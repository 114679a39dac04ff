package sites

import (
	"fmt"
	"testing"
)

// TestRecent: a value is made once and kept; past maxIndexes, the one
// used least recently goes, not the oldest made.
func TestRecent(t *testing.T) {
	var c recent[int]
	made := 0
	get := func(k string) int {
		v, err := c.get(k, func() (int, error) { made++; return made, nil })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := 0; i < maxIndexes; i++ {
		get(fmt.Sprint(i))
	}
	get("0") // used again: now the most recent
	get("new")
	if made != maxIndexes+1 {
		t.Fatalf("made %d values", made)
	}
	before := made
	get("0")
	if made != before {
		t.Error("the value used recently was dropped")
	}
	get("1")
	if made != before+1 {
		t.Error("the value used least recently was kept")
	}
	if _, err := c.get("bad", func() (int, error) { return 0, fmt.Errorf("no") }); err == nil {
		t.Error("an error was not returned")
	}
	if _, ok := c.by["bad"]; ok {
		t.Error("a failed make was kept")
	}
}
