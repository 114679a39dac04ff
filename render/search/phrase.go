package search

import "strings"

// Phrases in titles. Besides its words, a page's title is indexed as the
// pairs of words that follow each other in it ("speech" pairSep "to",
// "to" pairSep "text") and as a whole (titleMark, then its words joined by
// pairSep), as words no text can hold: a query whose words follow each
// other in a title, or that is the title, gets a bonus (pairBonus,
// titleBonus) on that page. A pair sorts right after its first word, in
// the chunk the query loads for it; whole titles sort before every word.
const (
	pairSep   = "\x01"
	titleMark = "\x02"

	pairBonus, titleBonus = 1.0, 3.0
)

// maxTitleWords bounds the words of a title that are indexed as pairs,
// and those of a title indexed whole (a page's front matter may hold a
// title of any length): a query has at most as many (maxQueryWords).
const maxTitleWords = maxQueryWords

// titleTerms returns the pairs and whole-title terms of a title.
func titleTerms(title string) []string {
	words := Words(title)
	if len(words) < 2 {
		return nil
	}
	whole := len(words) <= maxTitleWords
	words = words[:min(len(words), maxTitleWords)]
	out := make([]string, 0, len(words))
	for i := 0; i+1 < len(words); i++ {
		out = append(out, words[i]+pairSep+words[i+1])
	}
	if !whole {
		return out
	}
	return append(out, titleMark+strings.Join(words, pairSep))
}

// isPhrase reports whether an index word is a pair or a whole title.
func isPhrase(w string) bool { return strings.ContainsAny(w, pairSep+titleMark) }

// phraseTerms returns the index words a query's words (terms) look up for
// the phrase bonuses, with each one's bonus.
func phraseTerms(terms []string) ([]string, []float64) {
	if len(terms) < 2 {
		return nil, nil
	}
	var words []string
	var bonus []float64
	for i := 0; i+1 < len(terms); i++ {
		words = append(words, terms[i]+pairSep+terms[i+1])
		bonus = append(bonus, pairBonus)
	}
	return append(words, titleMark+strings.Join(terms, pairSep)), append(bonus, titleBonus)
}

// exact returns the postings of the index word w, nil when it has none.
func (ix *Index) exact(w string) ([]uint32, error) {
	lo, hi := ix.chunksFor(w)
	if hi < lo {
		return nil, nil
	}
	c, err := ix.chunk(lo)
	if err != nil {
		return nil, err
	}
	for k, cw := range c.Words {
		if cw == w {
			return c.Postings[k], nil
		}
	}
	return nil, nil
}
