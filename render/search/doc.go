package search

import (
	"encoding/json"
	"slices"
	"strings"
)

// Fields: a word counts this many times in its page's term frequency when
// it is in the title, a heading, the description or keywords, and the body
// text (BM25F's weighted frequency); and the best field it is in is kept
// with its frequency (Term.F's low two bits), for the ranking's boost of
// titles over headings over the rest (fieldBoost).
const (
	weightTitle    = 4
	weightHeading  = 2
	weightDescribe = 2
	weightBody     = 1

	fieldBody, fieldDescribe, fieldHeading, fieldTitle = 0, 1, 2, 3
)

// Page is what the search index holds of one page: its URL (from the site
// root), title, description, keywords and group (the innermost group of
// the navigation that holds it), and its rendered body's HTML, which its
// h2 and h3 headings split into sections (Sections).
type Page struct {
	Path, URL, Title, Description, Group string
	Keywords                             []string
	Body                                 string
}

// Doc is a page as the index builder needs it, made by NewDoc on the
// page's worker: its words with their weighted frequencies, its length in
// words, and its fragment, what the reader's browser loads to show the
// page in results.
type Doc struct {
	Terms []byte // the words, encoded (terms.go): DocTerms decodes them
	Frag  []byte // the fragment, JSON; EncodeFragments writes it in its file
}

// Term is a word of a page: its weighted frequency there, shifted left by
// two, and the best field it is in (fieldTitle...) in the low two bits.
type Term struct {
	Word string
	F    uint32
}

// maxFreq bounds a word's weighted frequency in a page.
const maxFreq = 1 << 20

// maxPageTerms bounds the distinct words (camel-case parts and title
// phrases included) that one page adds to the index, the first found
// (title, description, keywords, then the sections in order): a page of
// generated identifiers would otherwise fill chunks that every query of
// their prefixes loads. Pipecat's largest page has some 750.
const maxPageTerms = 1 << 15

// Section is a part of a page under one heading (or the part before the
// first heading, with no anchor): what a result links to and its excerpt
// is taken from.
type Section struct {
	Anchor, Heading, Text string
}

// fragment is the payload of a page's fragment file.
type fragment struct {
	Path        string     `json:"p"`
	URL         string     `json:"u"`
	Title       string     `json:"t"`
	Group       string     `json:"g,omitempty"`
	Description string     `json:"d,omitempty"`
	Keywords    []string   `json:"k,omitempty"`
	Sections    [][]string `json:"s"` // [anchor, heading, text]
}

// Sections splits a rendered body into its sections at its h2 and h3
// headings that have an id.
func Sections(body string) []Section {
	_, secs := scan(body, true)
	return secs
}

func appendSection(out []Section, anchor, heading, body string) []Section {
	t := text(body)
	if anchor == "" && t == "" {
		return out
	}
	return append(out, Section{Anchor: anchor, Heading: heading, Text: t})
}

// NewDoc makes the Doc of a page.
func NewDoc(p Page) Doc {
	secs := Sections(p.Body)
	// The words as found, each once, with their counts: one map lookup
	// per word of the page.
	type count struct {
		w     string
		f     uint32
		field uint8
	}
	var counts []count
	index := make(map[string]int32, 256)
	n := 0
	one := func(w string, weight uint32, field uint8) {
		i, ok := index[w]
		if !ok {
			if len(counts) >= maxPageTerms {
				return
			}
			i = int32(len(counts))
			index[w] = i
			counts = append(counts, count{w: w})
		}
		c := &counts[i]
		c.f += weight
		c.field = max(c.field, field)
	}
	add := func(s string, weight uint32, field uint8) {
		eachWord(s, func(w string, start, end int) {
			one(w, weight, field)
			if w != s[start:end] { // capitals: camel case?
				for _, part := range camelParts(s[start:end]) {
					one(part, weight, field)
				}
			}
			n++
		})
	}
	add(p.Title, weightTitle, fieldTitle)
	// The title's words in order: each pair that follow each other, and
	// the whole title (phrase.go).
	for _, w := range titleTerms(p.Title) {
		one(w, weightTitle, fieldTitle)
	}
	add(p.Description, weightDescribe, fieldDescribe)
	for _, k := range p.Keywords {
		add(k, weightDescribe, fieldDescribe)
	}
	f := fragment{Path: p.Path, URL: p.URL, Title: p.Title, Group: p.Group, Description: p.Description, Keywords: p.Keywords,
		Sections: make([][]string, 0, len(secs))}
	for _, s := range secs {
		add(s.Heading, weightHeading, fieldHeading)
		add(s.Text, weightBody, fieldBody)
		f.Sections = append(f.Sections, []string{s.Anchor, s.Heading, s.Text})
	}
	terms := make([]Term, 0, len(counts))
	for _, c := range counts {
		terms = append(terms, Term{Word: c.w, F: min(c.f, maxFreq)<<2 | uint32(c.field)})
	}
	// Sorted by bytes, for encodeTerms to share prefixes (Build sorts the
	// vocabulary as the browser compares words).
	slices.SortFunc(terms, func(a, b Term) int { return strings.Compare(a.Word, b.Word) })
	d := Doc{Terms: encodeTerms(terms, n)}
	payload, err := json.Marshal(f)
	if err != nil { // cannot happen: strings only
		payload = []byte(`{"s":[]}`)
	}
	d.Frag = payload
	return d
}
