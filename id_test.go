package lectern

import (
	"strings"
	"testing"
	"time"
)

func TestIDTime(t *testing.T) {
	t.Parallel()
	before := time.Now().Truncate(time.Millisecond)
	id := NewID(PrefixDeployment)
	after := time.Now()
	got, ok := IDTime(PrefixDeployment, id)
	if !ok || got.Before(before) || got.After(after) {
		t.Errorf("IDTime(%s) = %v, %v; want between %v and %v", id, got, ok, before, after)
	}
	for _, bad := range []string{"", "dep_", "prj_" + id[4:], id + "x", "dep_" + strings.Repeat("u", 26)} {
		if _, ok := IDTime(PrefixDeployment, bad); ok {
			t.Errorf("IDTime(%q) accepted", bad)
		}
	}
	// Known value: the first ten digits are the milliseconds.
	if got, _ := IDTime(PrefixDeployment, "dep_0000000010"+strings.Repeat("0", 16)); got.UnixMilli() != 32 {
		t.Errorf("IDTime of 0000000010... = %d ms, want 32", got.UnixMilli())
	}
}
