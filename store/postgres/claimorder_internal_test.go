package postgres

import (
	"slices"
	"testing"
	"time"
)

// TestKeptOrderEnd checks how a claim moves its organization in an order
// kept: one that got a job goes after those with as many jobs running
// that claimed no later (as the order read again would put it), and one
// that got none drops out.
func TestKeptOrderEnd(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	ids := func(k *keptOrder) []string {
		var out []string
		for _, o := range k.orgs {
			out = append(out, o.id)
		}
		return out
	}
	k := &keptOrder{orgs: []orgOrder{
		{id: "a"},                          // never claimed
		{id: "b"},                          // never claimed
		{id: "c", claimed: t0},             // claimed at t0
		{id: "d", running: 1, claimed: t0}, // one running
		{id: "e", running: 1, claimed: t0.Add(time.Second)},
	}}
	k.end("a", true, t0.Add(time.Minute)) // a: 1 running, claimed last
	if got, want := ids(k), []string{"b", "c", "d", "e", "a"}; !slices.Equal(got, want) {
		t.Errorf("after a's claim: %v, want %v", got, want)
	}
	k.end("b", true, t0.Add(-time.Hour)) // (a claim dated earlier than d's and e's)
	if got, want := ids(k), []string{"c", "b", "d", "e", "a"}; !slices.Equal(got, want) {
		t.Errorf("after b's claim: %v, want %v", got, want)
	}
	k.end("d", false, t0)
	if got, want := ids(k), []string{"c", "b", "e", "a"}; !slices.Equal(got, want) {
		t.Errorf("after d found nothing: %v, want %v", got, want)
	}
	k.end("x", true, t0) // not in the order: nothing moves
	if got, want := ids(k), []string{"c", "b", "e", "a"}; !slices.Equal(got, want) {
		t.Errorf("after an unknown organization's claim: %v, want %v", got, want)
	}
	if k.orgs[1].running != 1 || !k.orgs[1].claimed.Equal(t0.Add(-time.Hour)) {
		t.Errorf("b after its claim = %+v, want 1 running, claimed at its claim's time", k.orgs[1])
	}
}
