package assistant

import (
	"math"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"lectern.dev/lectern/render/search"
)

// Passage is a section of a page that answers part of a question.
type Passage struct {
	Title   string // the page's title
	URL     string // the page's URL in the site, with #anchor for a section
	Heading string // the section's heading; "" for the page's opening
	Text    string
	Score   float64
	// Matched is the share of the question's words the passage holds.
	Matched float64
}

// Retrieval's bounds: pages read, sections kept per page, the question's
// words that count (as in search), and the text of a section read to
// score and quote it.
const (
	maxPages       = 8
	sectionsPerDoc = 2
	maxTerms       = 16
	maxSectionText = 64 << 10
)

// Retrieve returns up to k passages of ix for question, best first.
func Retrieve(ix *search.Index, question string, k int) ([]Passage, error) {
	terms := contentTerms(question)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	results, err := ix.Rank(strings.Join(termWords(terms), " ")+" ", maxPages)
	if err != nil || len(results) == 0 {
		return nil, err
	}
	top := results[0].Score
	var out []Passage
	for rank, r := range results {
		d, err := ix.Document(r.ID)
		if err != nil {
			return nil, err
		}
		rel := r.Score / math.Max(top, 1e-9)
		pageWeight := rel*rel - 0.01*float64(rank)
		var mine []Passage
		inTitle, _ := stemCounts(d.Title, terms)
		for _, s := range withDescription(d) {
			s.Text = clip(s.Text)
			if strings.TrimSpace(s.Text) == "" {
				continue
			}
			got, share := sectionScore(terms, inTitle, s)
			if got == 0 {
				continue
			}
			u := r.URL
			if s.Anchor != "" {
				u += "#" + s.Anchor
			}
			mine = append(mine, Passage{Title: d.Title, URL: u, Heading: s.Heading, Text: s.Text,
				Score: got * pageWeight, Matched: share})
		}
		sort.SliceStable(mine, func(i, j int) bool { return mine[i].Score > mine[j].Score })
		if len(mine) > sectionsPerDoc {
			mine = mine[:sectionsPerDoc]
		}
		out = append(out, mine...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// withDescription returns d's sections with its description (front
// matter's, which the page shows under its title) at the start of its
// opening: a page may say what it answers there only.
func withDescription(d *search.Document) []search.Section {
	if strings.TrimSpace(d.Description) == "" {
		return d.Sections
	}
	secs := make([]search.Section, 0, len(d.Sections)+1)
	if len(d.Sections) > 0 && d.Sections[0].Anchor == "" && d.Sections[0].Heading == "" {
		first := d.Sections[0]
		first.Text = d.Description + "\n" + first.Text
		secs = append(secs, first)
		return append(secs, d.Sections[1:]...)
	}
	secs = append(secs, search.Section{Text: d.Description})
	return append(secs, d.Sections...)
}

// term is a content word of a question: its stem, and the word itself.
type term struct{ word, stem string }

// contentTerms returns the question's words that carry meaning (not the
// "how do I" of a question), once each.
func contentTerms(q string) []term {
	var out []term
	seen := map[string]bool{}
	for _, w := range search.Words(q) {
		if stopWords[w] || len([]rune(w)) < 2 {
			continue
		}
		st := search.Stem(w)
		if seen[st] {
			continue
		}
		seen[st] = true
		out = append(out, term{w, st})
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

// clip returns the first maxSectionText bytes of s, cut at a rune.
func clip(s string) string {
	if len(s) <= maxSectionText {
		return s
	}
	i := maxSectionText
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

func termWords(ts []term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.word
	}
	return out
}

// sectionScore scores a section for the question's terms: each term found
// (by stem) in its heading counts twice, in its text once, a little more
// when it comes again; the page title counts for the section too. It
// returns the score and the share of the terms found.
func sectionScore(terms []term, inTitle map[string]int, s search.Section) (float64, float64) {
	heading, _ := stemCounts(s.Heading, terms)
	text, n := stemCounts(s.Text, terms)
	score, found := 0.0, 0
	for _, t := range terms {
		h, b, ti := heading[t.stem], text[t.stem], inTitle[t.stem]
		if h+b+ti == 0 {
			continue
		}
		found++
		if h > 0 {
			score += 2
		}
		if ti > 0 {
			score += 1
		}
		if b > 0 {
			score += 1 + math.Log(float64(b))*0.3
		}
	}
	if found == 0 {
		return 0, 0
	}
	share := float64(found) / float64(len(terms))
	// Sections holding all the question's words come first; long ones
	// are not favoured for their length alone.
	return score * share * share / (1 + float64(n)/800), share
}

// stemCounts counts, among s's words, those whose stem is one of the
// terms', and all the words. Only the words that begin as a term's stem
// does (its first two letters, which English stems keep) are stemmed:
// stemming every word of a long section is most of an answer's cost.
func stemCounts(s string, terms []term) (map[string]int, int) {
	m := map[string]int{}
	words := search.Words(s)
	for _, w := range words {
		if !mayMatch(w, terms) {
			continue
		}
		st := stem(w)
		for _, t := range terms {
			if t.stem == st {
				m[st]++
				break
			}
		}
	}
	return m, len(words)
}

// stems remembers the stems of words seen, shared by all answers (the
// same words come back in every question and section); cleared when it
// holds maxStems.
var stems struct {
	sync.RWMutex
	m map[string]string
}

const maxStems = 200_000

// maxStemmed is the longest word whose stem is remembered: longer ones,
// rare, are stemmed each time (the cache's bytes stay bounded).
const maxStemmed = 32

// stem is search.Stem, remembered.
func stem(w string) string {
	if len(w) > maxStemmed {
		return search.Stem(w)
	}
	stems.RLock()
	st, ok := stems.m[w]
	stems.RUnlock()
	if ok {
		return st
	}
	st = search.Stem(w)
	stems.Lock()
	if stems.m == nil || len(stems.m) >= maxStems {
		stems.m = make(map[string]string, 1024)
	}
	stems.m[strings.Clone(w)] = st
	stems.Unlock()
	return st
}

// mayMatch reports whether word w may have a term's stem: whether they
// begin with the same two bytes (or w is the stem, for stems shorter).
func mayMatch(w string, terms []term) bool {
	for _, t := range terms {
		if len(t.stem) < 2 || len(w) < 2 {
			if strings.HasPrefix(w, t.stem) || strings.HasPrefix(t.stem, w) {
				return true
			}
			continue
		}
		if w[0] == t.stem[0] && w[1] == t.stem[1] {
			return true
		}
	}
	return false
}

// stopWords are the words of questions that say nothing of their subject.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about an and are as at be been but by can could do does did for from
		get got has have how i if in into is it its me my no not of on or our please should so some
		than that the their them then there these they this to use used using want was we what when
		where which while who why will with would you your yours can't don't cannot`) {
		stopWords[w] = true
	}
}
