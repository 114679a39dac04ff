package layout

import (
	"math/rand/v2"
	"testing"
)

// TestSectionRuns checks the runs of top-level entries that part's
// windows use against a walk from each place, on random sections.
func TestSectionRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		w := &sectionNav{}
		for range rng.IntN(40) {
			g := -1
			if rng.IntN(3) == 0 {
				g = rng.IntN(4)
			}
			w.entries = append(w.entries, sideEntry{group: g})
		}
		w.runs()
		n := len(w.entries)
		for c := 0; c <= n; c++ {
			wlo, whi := c, c
			for wlo > 0 && w.entries[wlo-1].group < 0 {
				wlo--
			}
			for whi < n && w.entries[whi].group < 0 {
				whi++
			}
			if lo, hi := w.run(c); lo != wlo || hi != whi {
				t.Fatalf("groups %v, place %d: run [%d, %d), want [%d, %d)", groupsOf(w), c, lo, hi, wlo, whi)
			}
		}
	}
}

func groupsOf(w *sectionNav) []int {
	var g []int
	for _, e := range w.entries {
		g = append(g, e.group)
	}
	return g
}
