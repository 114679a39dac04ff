package search

import "testing"

// FuzzStem checks that Stem never panics, returns any input it does not
// stem unchanged, and never lengthens a word by more than one letter,
// whether given raw bytes or the same bytes read as lowercase letters
// (so that the stemmer itself, not only its guard, is exercised), and
// when given its own output again. Inputs it found are kept under
// testdata/fuzz/FuzzStem.
func FuzzStem(f *testing.F) {
	for _, w := range []string{"generously", "skies", "hopping", "luxuriated", "y", "yyy", "ayyy", "communism",
		"arsenal", "proceeded", "innings", "eeds", "ies", "sses", "ogi", "bli", "données", "v2", "\xff"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, w := range []string{in, stemLetters(in)} {
			got := Stem(w)
			if !stemmable(w) && got != w {
				t.Fatalf("Stem(%q) = %q: a word it does not stem must come back unchanged", w, got)
			}
			if len(got) > len(w)+1 {
				t.Fatalf("Stem(%q) = %q is longer than the word", w, got)
			}
			if stemmable(w) && !stemmable(got) && len(got) >= 3 {
				t.Fatalf("Stem(%q) = %q: a stem of letters holds something else", w, got)
			}
			if again := Stem(got); len(again) > len(got)+1 {
				t.Fatalf("Stem(Stem(%q)) = %q is longer than %q", w, again, got)
			}
		}
	})
}

// stemLetters maps each byte of s to a lowercase letter, vowels and the
// letters of suffixes more often than the others.
func stemLetters(s string) string {
	const letters = "aeiouyyeeislntdgrbcfhkmpvwxzjqaeiouslyz"
	b := []byte(s)
	for i, c := range b {
		b[i] = letters[int(c)%len(letters)]
	}
	return string(b)
}
