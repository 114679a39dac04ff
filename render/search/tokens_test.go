package search

import (
	"testing"
	"unicode"
)

// TestIsWordRune: a word's runes are the browser's /[\p{L}\p{N}\p{M}]/u,
// for every rune, the fast paths included.
func TestIsWordRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.In(r, unicode.L, unicode.N, unicode.M)
		if got := isWordRune(r); got != want {
			t.Fatalf("isWordRune(%U) = %v, want %v", r, got, want)
		}
	}
}
