package search

// wordAt is a word of a text, its camel-case parts, and where it is.
type wordAt struct {
	w          string
	parts      []string
	start, end int
}

func wordsAt(s string) []wordAt {
	var out []wordAt
	eachWord(s, func(w string, start, end int) { out = append(out, wordAt{w, camelParts(s[start:end]), start, end}) })
	return out
}

// in reports whether the word or one of its parts is in set.
func (w wordAt) in(set map[string]bool) bool {
	if set[w.w] {
		return true
	}
	for _, p := range w.parts {
		if set[p] {
			return true
		}
	}
	return false
}

// hitTerms returns, for each of the query's words (sets: the index's
// words each matched), whether one of words is among them, and how many
// such words there are in all.
func hitTerms(words []wordAt, sets []map[string]bool) (terms []int, total int) {
	terms = make([]int, len(sets))
	for _, w := range words {
		hit := false
		for i, set := range sets {
			if w.in(set) {
				terms[i]++
				hit = true
			}
		}
		if hit {
			total++
		}
	}
	return terms, total
}

// placeResult chooses the section of fragment f that the result links to
// (the one whose heading and text hold most of the query's words) and its
// excerpt.
func placeResult(r *Result, f *fragment, sets []map[string]bool) {
	titleTerms, _ := hitTerms(wordsAt(f.Title), sets)
	titleAll := true
	for _, n := range titleTerms {
		titleAll = titleAll && n > 0
	}
	best, bestScore := -1, 0
	for i, s := range f.Sections {
		if len(s) != 3 {
			continue
		}
		ht, _ := hitTerms(wordsAt(s[1]), sets)
		tt, _ := hitTerms(wordsAt(s[2]), sets)
		score, all := 0, true
		for k := range sets {
			if ht[k] > 0 {
				score += 3
			}
			score += min(tt[k], 2)
			all = all && ht[k]+tt[k] > 0
		}
		if all {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		r.Excerpt = f.Description
		if r.Excerpt == "" && len(f.Sections) > 0 && len(f.Sections[0]) == 3 {
			r.Excerpt, _ = cut(f.Sections[0][2], excerptWords)
		}
		return
	}
	s := f.Sections[best]
	if !titleAll {
		// A heading-level result; one whose title holds every word is
		// a page-level result.
		r.Anchor, r.Heading = s[0], s[1]
	}
	r.Excerpt, r.Highlights = excerpt(s[2], sets)
}

// cut returns the first n words of s.
func cut(s string, n int) (string, bool) {
	words := wordsAt(s)
	if len(words) <= n {
		return s, false
	}
	return s[:words[n-1].end] + " …", true
}

// excerpt returns the part of text, excerptWords long, that holds most
// of the query's words (the most of them, then the most hits), and where
// those words are in it.
func excerpt(text string, sets []map[string]bool) (string, [][2]int) {
	words := wordsAt(text)
	hit := make([]int, len(words)) // -1: no term, else a bit set of terms
	for i, w := range words {
		hit[i] = 0
		for k, set := range sets {
			if k < 30 && w.in(set) {
				hit[i] |= 1 << k
			}
		}
	}
	start, bestTerms, bestHits := 0, -1, -1
	for i := range words {
		if hit[i] == 0 {
			continue
		}
		s := max(0, i-4)
		terms, hits := 0, 0
		for j := s; j < len(words) && j < s+excerptWords; j++ {
			if hit[j] != 0 {
				hits++
				terms |= hit[j]
			}
		}
		if n := bitCount(terms); n > bestTerms || n == bestTerms && hits > bestHits {
			start, bestTerms, bestHits = s, n, hits
		}
	}
	if len(words) == 0 {
		return "", nil
	}
	end := min(len(words), start+excerptWords)
	from, to := words[start].start, words[end-1].end
	if start == 0 {
		from = 0
	}
	out, shift := text[from:to], from
	if start > 0 {
		out, shift = "… "+out, from-len("… ")
	}
	if end < len(words) {
		out += " …"
	}
	var marks [][2]int
	for j := start; j < end; j++ {
		if hit[j] != 0 {
			marks = append(marks, [2]int{words[j].start - shift, words[j].end - shift})
		}
	}
	return out, marks
}

func bitCount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}
