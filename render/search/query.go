package search

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// Result is a page found by a query, with the section of it that matches
// best: its URL (from the site root, as the index holds it; Link adds the
// section's anchor), title and group, the section's anchor and heading
// ("" for the part before the first heading), an excerpt of the section's
// text around the words found, and where those words are in the excerpt
// (byte offsets).
type Result struct {
	ID                int
	Path              string // the page's path in the site
	URL, Title, Group string
	Anchor, Heading   string
	Excerpt           string
	Highlights        [][2]int
	Score             float64
	// Partial says that no page holds every word of the query: the
	// results hold most of them.
	Partial bool
}

// Link is the result's URL with its section's anchor.
func (r Result) Link() string {
	if r.Anchor == "" {
		return r.URL
	}
	return r.URL + "#" + r.Anchor
}

// Query tuning, the same in query.js.
const (
	k1, b = 1.2, 0.75
	// maxTermChunks bounds the chunks one word of a query loads.
	maxTermChunks = 4
	// maxExpansions bounds the words of the index one word of a query
	// matches (by stem, prefix or typo), the best first.
	maxExpansions = 24
	// Match factors: a word found as typed counts fully; by stem, as the
	// start of a longer word (the word being typed) or with one typo,
	// less.
	factorExact, factorStem, factorTypo = 1.0, 0.9, 0.6
	// minTypo is the shortest word (in letters) in which one typo is
	// forgiven.
	minTypo = 5
	// excerptWords is the length of an excerpt, in words.
	excerptWords = 24
	// maxQueryWords bounds the words of a query that count, the first
	// ones: each loads chunks.
	maxQueryWords = 16
)

// fieldBonus adds to a word's frequency score (BM25's, at most k1+1) by
// the best field of the page it is in: body, description or keywords,
// heading, title. Unlike the frequency, it does not shrink with the page's
// length: a word of a long page's title counts as much as of a short one's.
var fieldBonus = [4]float64{0, 0.6, 1.2, 4}

// match is a word of the index that a word of the query matches.
type match struct {
	word     string
	factor   float64
	postings []uint32
}

// Search runs query on the index and returns the best limit results. The
// query's words must all be found (by stem, prefix while typing, one typo
// in longer words); when no page holds them all, pages that hold most of
// them are returned. A query that does not end in a space or punctuation
// takes its last word as a prefix, as while typing. Only the query's first
// maxQueryWords distinct words count.
func (ix *Index) Search(query string, limit int) ([]Result, error) {
	return ix.search(query, limit, true)
}

// Rank is Search without the excerpts (Anchor, Heading, Excerpt and
// Highlights are empty): for server-side retrieval, which reads the
// sections of the pages itself (Document).
func (ix *Index) Rank(query string, limit int) ([]Result, error) {
	return ix.search(query, limit, false)
}

func (ix *Index) search(query string, limit int, excerpts bool) ([]Result, error) {
	terms := uniqueWords(query)
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	r, _ := utf8.DecodeLastRuneInString(query)
	typing := isWordRune(r)
	if len(terms) > maxQueryWords {
		terms, typing = terms[:maxQueryWords], false
	}
	scores := map[int]float64{}
	hits := map[int]int{}
	var sets []map[string]bool
	for i, t := range terms {
		ms, err := ix.matches(t, typing && i == len(terms)-1)
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		best := map[int]float64{}
		for _, m := range ms {
			set[m.word] = true
			idf := ix.idf(len(m.postings) / 2)
			id := uint32(0)
			for j := 0; j+1 < len(m.postings); j += 2 {
				id += m.postings[j]
				f, field := float64(m.postings[j+1]>>2), m.postings[j+1]&3
				dl := float64(ix.Len(int(id)))
				// The explicit float64 rounds the product, which the
				// compiler may otherwise fuse with the sum (FMA, on arm64
				// or amd64 v3): query.js's scores must be the same.
				s := m.factor * idf * (fieldBonus[field] + f*(k1+1)/(f+float64(k1*(1-b+b*dl/math.Max(ix.meta.AvgLen, 1)))))
				if s > best[int(id)] {
					best[int(id)] = s
				}
			}
		}
		for id, s := range best {
			scores[id] += s
			hits[id]++
		}
		sets = append(sets, set)
	}
	// Words that follow each other in a page's title, or are its title.
	phrases, bonus := phraseTerms(terms)
	for k, w := range phrases {
		ps, err := ix.exact(w)
		if err != nil {
			return nil, err
		}
		idf := ix.idf(len(ps) / 2)
		id := uint32(0)
		for j := 0; j+1 < len(ps); j += 2 {
			id += ps[j]
			if _, ok := scores[int(id)]; ok {
				scores[int(id)] += float64(bonus[k] * idf) // not fused, as above
			}
		}
	}
	ids := make([]int, 0, len(scores))
	most := 0
	for id := range scores {
		most = max(most, hits[id])
	}
	for id := range scores {
		if hits[id] == most {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if scores[ids[i]] != scores[ids[j]] {
			return scores[ids[i]] > scores[ids[j]]
		}
		return ids[i] < ids[j]
	})
	if len(ids) > limit {
		ids = ids[:limit]
	}
	out := make([]Result, 0, len(ids))
	for _, id := range ids {
		f, err := ix.fragment(id)
		if err != nil {
			return nil, err
		}
		res := Result{ID: id, Path: f.Path, URL: f.URL, Title: f.Title, Group: f.Group, Score: scores[id], Partial: most < len(terms)}
		if excerpts {
			placeResult(&res, f, sets)
		}
		out = append(out, res)
	}
	return out, nil
}

// idf is BM25's inverse document frequency of a word in df pages.
func (ix *Index) idf(df int) float64 {
	return math.Log(1 + (float64(ix.meta.Pages)-float64(df)+0.5)/(float64(df)+0.5))
}

// uniqueWords returns the words of a query, each once, in order.
func uniqueWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	eachWord(q, func(w string, _, _ int) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	})
	return out
}

// matches returns the words of the index that the query word t matches,
// the best maxExpansions of them: t itself, words of its stem, words it
// starts (when prefix: the word being typed), and, for words of minTypo
// letters or more, words one typo away. It loads the chunks of the words
// that share t's first three letters, or fewer chunks when those are
// many.
func (ix *Index) matches(t string, prefix bool) ([]match, error) {
	stem := Stem(t)
	from := firstRunes(t, 3)
	lo, hi := ix.chunksFor(from)
	if hi-lo+1 > maxTermChunks {
		from = commonPrefix(t, stem)
		if utf8.RuneCountInString(from) < 3 {
			from = firstRunes(t, 3)
		}
		lo, hi = ix.chunksFor(from)
		hi = min(hi, lo+maxTermChunks-1)
	}
	n := utf8.RuneCountInString(t)
	if n < 2 {
		hi = min(hi, lo) // one letter: the word itself, no words it starts
	}
	var out []match
	for i := lo; i <= hi; i++ {
		c, err := ix.chunk(i)
		if err != nil {
			return nil, err
		}
		for k, w := range c.Words {
			if !hasPrefix(w, from) || isPhrase(w) {
				continue
			}
			f := matchFactor(w, t, stem, n, prefix)
			if f > 0 {
				out = append(out, match{word: w, factor: f, postings: c.Postings[k]})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].factor != out[j].factor {
			return out[i].factor > out[j].factor
		}
		return len(out[i].postings) > len(out[j].postings)
	})
	if len(out) > maxExpansions {
		out = out[:maxExpansions]
	}
	return out, nil
}

// matchFactor rates how the index's word w matches the query word t (of n
// runes, stem its Stem): 0 when it does not.
func matchFactor(w, t, stem string, n int, prefix bool) float64 {
	switch {
	case w == t:
		return factorExact
	case n >= 3 && Stem(w) == stem:
		return factorStem
	case prefix && n >= 2 && strings.HasPrefix(w, t):
		// The shorter the rest of the word, the likelier it is meant.
		return 0.5 + 0.3*float64(n)/float64(utf8.RuneCountInString(w))
	case n >= minTypo && oneEdit(w, t):
		return factorTypo
	}
	return 0
}

// hasPrefix reports whether w starts with p.
func hasPrefix(w, p string) bool { return strings.HasPrefix(w, p) }

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return a[:i]
}

// oneEdit reports whether a and b differ by exactly one typo: a letter
// added, left out, replaced, or two neighbours swapped.
func oneEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	if len(x) < len(y) {
		x, y = y, x
	}
	switch len(x) - len(y) {
	case 0:
		i := 0
		for i < len(x) && x[i] == y[i] {
			i++
		}
		if i == len(x) {
			return false // equal
		}
		if string(x[i+1:]) == string(y[i+1:]) {
			return true // replaced
		}
		return i+1 < len(x) && x[i] == y[i+1] && x[i+1] == y[i] && string(x[i+2:]) == string(y[i+2:])
	case 1:
		i := 0
		for i < len(y) && x[i] == y[i] {
			i++
		}
		return string(x[i+1:]) == string(y[i:])
	}
	return false
}
