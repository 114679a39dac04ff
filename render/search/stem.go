package search

import (
	_ "embed"

	"github.com/kljensen/snowball/english"
)

// StemJS is stem.js: lecternStem(word), the same stemmer as Stem for the
// reader's browser, an ES5 function declaration that defines no other
// global, so that it can be concatenated into another script.
//
//go:embed stem.js
var StemJS string

// Stem returns the Porter2 (Snowball English) stem of word, one lowercase
// word: "consigned" → "consign", "generously" → "generous". Stop words
// are stemmed like any other word. A word shorter than 3 bytes, or
// holding anything but the ASCII letters a to z (digits, capitals,
// apostrophes, other scripts), is returned unchanged; lecternStem in
// StemJS returns the same for every word.
func Stem(word string) string {
	if !stemmable(word) {
		return word
	}
	return english.Stem(word, true)
}

// stemmable reports whether Stem changes word at all: 3 or more letters,
// all of them ASCII lowercase.
func stemmable(word string) bool {
	if len(word) < 3 {
		return false
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
