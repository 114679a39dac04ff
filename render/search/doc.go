package search

import (
	"slices"
	"strings"
	"sync"
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
	// Terms are the words encoded (terms.go), for a rebuild cache's
	// record: set by Encode, or from the record for a page kept from a
	// previous build. DocTerms decodes them.
	Terms []byte
	Frag  []byte // the fragment, JSON; EncodeFragments writes it in its file
	words []Term // NewDoc's words (in the order found; Encode sorts them)
	n     int    // NewDoc's length of the page in words
}

// InIndex reports whether d is a page of the index: NewDoc's, or one with
// the Terms of a kept page.
func (d *Doc) InIndex() bool { return d.words != nil || d.Terms != nil }

// Encode sets d.Terms from NewDoc's words, sorted by bytes (so that the
// encoding shares prefixes and is the same for the same words). Only a
// build with a rebuild cache needs them: Builder.Add takes the words as
// they are.
func (d *Doc) Encode() {
	if d.Terms != nil || d.words == nil {
		return
	}
	slices.SortFunc(d.words, func(a, b Term) int { return strings.Compare(a.Word, b.Word) })
	d.Terms = encodeTerms(d.words, d.n)
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
	// per word of the page, in a map kept for the next page.
	sc := scratches.Get().(*scratch)
	defer sc.release()
	sc.add(p.Title, weightTitle, fieldTitle)
	// The title's words in order: each pair that follow each other, and
	// the whole title (phrase.go).
	for _, w := range titleTerms(p.Title) {
		sc.word(w, weightTitle, fieldTitle)
	}
	sc.add(p.Description, weightDescribe, fieldDescribe)
	for _, k := range p.Keywords {
		sc.add(k, weightDescribe, fieldDescribe)
	}
	for _, s := range secs {
		sc.add(s.Heading, weightHeading, fieldHeading)
		sc.add(s.Text, weightBody, fieldBody)
	}
	terms := make([]Term, 0, len(sc.counts))
	for _, c := range sc.counts {
		terms = append(terms, Term{Word: c.w, F: min(c.f, maxFreq)<<2 | uint32(c.field)})
	}
	return Doc{words: terms, n: sc.n, Frag: appendFragment(nil, p, secs)}
}

// count is a word of a page being read, and its weighted frequency and
// best field so far.
type count struct {
	w     string
	f     uint32
	field uint8
}

// scratch is NewDoc's count of a page's words: a map of each word to its
// count, kept from one page for the next (scratches), the page's length
// in words, and a buffer to lowercase a word in.
type scratch struct {
	index  map[string]int32
	counts []count
	n      int
	lower  []byte
}

var scratches = sync.Pool{New: func() any { return &scratch{index: make(map[string]int32, 256)} }}

// release empties sc, not to keep the page's words alive in the pool,
// and puts it back.
func (sc *scratch) release() {
	clear(sc.counts)
	sc.counts, sc.n = sc.counts[:0], 0
	if len(sc.index) > 1<<12 {
		sc.index = make(map[string]int32, 256) // not cleared for every page after a large one
	} else {
		clear(sc.index)
	}
	scratches.Put(sc)
}

// add counts the words of s (eachWord's, and their camel-case parts) in
// a field of weight weight.
func (sc *scratch) add(s string, weight uint32, field uint8) {
	eachRawWord(s, func(start, end int, ascii, upper bool) {
		raw := s[start:end]
		switch {
		case ascii && !upper:
			sc.word(raw, weight, field)
		case ascii: // capitals: camel case?
			sc.lowerWord(raw, weight, field)
			eachCamelPart(raw, func(part string) { sc.lowerWord(part, weight, field) })
		default: // (camel case is ASCII only)
			sc.word(strings.ToLower(raw), weight, field)
		}
		sc.n++
	})
}

// word counts word w, lowercase, in a field of weight weight.
func (sc *scratch) word(w string, weight uint32, field uint8) {
	i, ok := sc.index[w]
	if !ok {
		i = sc.slot(w)
	}
	sc.tally(i, weight, field)
}

// lowerWord counts ASCII word w, lowercased in sc.lower: a new string
// only for a word new to the page.
func (sc *scratch) lowerWord(w string, weight uint32, field uint8) {
	sc.lower = appendLowerASCII(sc.lower[:0], w)
	i, ok := sc.index[string(sc.lower)]
	if !ok {
		i = sc.slot(string(sc.lower))
	}
	sc.tally(i, weight, field)
}

// slot adds word w, new to the page, and returns its index in counts;
// -1 once the page has maxPageTerms words.
func (sc *scratch) slot(w string) int32 {
	if len(sc.counts) >= maxPageTerms {
		return -1
	}
	sc.index[w] = int32(len(sc.counts))
	sc.counts = append(sc.counts, count{w: w})
	return int32(len(sc.counts) - 1)
}

// tally adds weight to the count of index i, and keeps its best field.
func (sc *scratch) tally(i int32, weight uint32, field uint8) {
	if i < 0 {
		return
	}
	c := &sc.counts[i]
	c.f += weight
	c.field = max(c.field, field)
}

// appendFragment appends the fragment of page p, whose body has the
// sections secs: the JSON of a fragment, written directly (json.Marshal,
// by reflection, took a tenth of NewDoc's time).
func appendFragment(b []byte, p Page, secs []Section) []byte {
	size := 64 + len(p.Path) + len(p.URL) + len(p.Title) + len(p.Group) + len(p.Description)
	for _, s := range secs {
		size += len(s.Anchor) + len(s.Heading) + len(s.Text) + 12
	}
	b = slices.Grow(b, size)
	b = append(b, `{"p":`...)
	b = appendString(b, p.Path)
	b = append(b, `,"u":`...)
	b = appendString(b, p.URL)
	b = append(b, `,"t":`...)
	b = appendString(b, p.Title)
	if p.Group != "" {
		b = append(b, `,"g":`...)
		b = appendString(b, p.Group)
	}
	if p.Description != "" {
		b = append(b, `,"d":`...)
		b = appendString(b, p.Description)
	}
	if len(p.Keywords) > 0 {
		b = append(b, `,"k":[`...)
		for i, k := range p.Keywords {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
		}
		b = append(b, ']')
	}
	b = append(b, `,"s":[`...)
	for i, s := range secs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendString(b, s.Anchor)
		b = append(b, ',')
		b = appendString(b, s.Heading)
		b = append(b, ',')
		b = appendString(b, s.Text)
		b = append(b, ']')
	}
	return append(b, "]}"...)
}
