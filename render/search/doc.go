package search

import (
	"bytes"
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
// h2 and h3 headings split into sections (Sections): Headings, when the
// body's were found already (FindHeadings, for its table of contents).
type Page struct {
	Path, URL, Title, Description, Group string
	Keywords                             []string
	Body                                 string
	Headings                             *Headings
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
	h    uint32 // NewDoc's hash of Word (hashWord), for Builder
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

// NewDoc makes the Doc of a page.
func NewDoc(p Page) Doc {
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
	// The body's words, as its sections are written in the fragment.
	frag := appendFragmentHead(sc.frag[:0], p)
	frag = sc.sections(frag, p.Body, p.Headings)
	frag = append(frag, "]}"...)
	sc.frag = frag
	terms := make([]Term, len(sc.counts))
	for i, c := range sc.counts {
		terms[i] = Term{Word: sc.set.words[i], F: min(c.f, maxFreq)<<2 | uint32(c.field), h: sc.set.hashes[i]}
	}
	return Doc{words: terms, n: sc.n, Frag: bytes.Clone(frag)}
}

// appendFragmentHead appends the start of page p's fragment, the JSON
// of a fragment up to its sections (written directly: json.Marshal, by
// reflection, took a tenth of NewDoc's time).
func appendFragmentHead(b []byte, p Page) []byte {
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
	return append(b, `,"s":[`...)
}
