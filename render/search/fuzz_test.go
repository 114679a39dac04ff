package search

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeFile: any bytes read as an index file give an error or a
// payload, never a panic; an encoded payload reads back.
func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(`{"v":2}`), []byte(`LECTERN_SEARCH("H4sIAAAAAAAA/w==");`+"\n"))
	f.Add([]byte(""), []byte(`LECTERN_SEARCH("");`+"\n"))
	f.Add([]byte(`[["a","b"]]`), encodeFile([]byte(`[["a","b"],["a","b"]]`)))
	f.Fuzz(func(t *testing.T, payload, file []byte) {
		_, _ = decodeFile(file)
		got, err := decodeFile(encodeFile(payload))
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("round trip: %q, %v", got, err)
		}
	})
}

// FuzzTerms: a page's encoded words decode to what was encoded; damaged
// bytes give an error, never a panic.
func FuzzTerms(f *testing.F) {
	f.Add("the quick brown fox jumps over the lazy dog", []byte{3, 1, 0, 1, 'a', 4})
	f.Add("Ünïcode ÉTÉ gpt-4o HTTPServer", []byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, text string, junk []byte) {
		_, _, _ = DocTerms(junk)
		text = strings.NewReplacer("<", " ", ">", " ", "&", " ").Replace(text) // text, not markup
		page := Page{Title: "T", Body: "<p>" + text + "</p>"}
		d := NewDoc(page)
		d.Encode()
		terms, n, err := DocTerms(d.Terms)
		if err != nil {
			t.Fatal(err)
		}
		if n < len(Words(text)) {
			t.Fatalf("length %d < %d words", n, len(Words(text)))
		}
		// The terms are those of a plain count over eachWord's words.
		if want, wantN := referenceTerms(page); len(terms) < maxPageTerms {
			got := map[string]uint32{}
			for _, term := range terms {
				got[term.Word] = term.F
			}
			if !reflect.DeepEqual(got, want) || n != wantN {
				t.Fatalf("terms %v (length %d), want %v (length %d)", got, n, want, wantN)
			}
		}
		for i, term := range terms {
			// By bytes (Doc.Encode), which the encoding's shared
			// prefixes need; Build sorts the vocabulary as the browser
			// compares words.
			if i > 0 && strings.Compare(terms[i-1].Word, term.Word) >= 0 {
				t.Fatalf("words out of order: %q, %q", terms[i-1].Word, term.Word)
			}
		}
		if !reflect.DeepEqual(encodeTerms(terms, n), d.Terms) {
			t.Fatal("encoding the decoded words differs")
		}
	})
}

// FuzzWords: words are lowercase runs of letters and digits no longer
// than MaxWord, found where they are.
func FuzzWords(f *testing.F) {
	f.Add("Hello, World! snake_case HTTPServer x2 Ünïcode")
	f.Fuzz(func(t *testing.T, s string) {
		eachWord(s, func(w string, start, end int) {
			if end-start > MaxWord || w == "" || start < 0 || end > len(s) || start >= end {
				t.Fatalf("word %q at [%d,%d)", w, start, end)
			}
			if utf8.ValidString(s[start:end]) && w != strings.ToLower(s[start:end]) {
				t.Fatalf("word %q of %q is not its lowercase", w, s[start:end])
			}
			for _, p := range camelParts(s[start:end]) {
				if p == "" || !strings.Contains(w, p) {
					t.Fatalf("camel part %q of %q", p, w)
				}
			}
		})
	})
}

// FuzzDecodeFragments: any payload read as a fragment file gives an error
// or at most FragmentGroup fragments, never a panic; the fragments read
// write a file that reads back the same.
func FuzzDecodeFragments(f *testing.F) {
	f.Add([]byte(`[{"p":"a"},null,{"p":"b"}]`))
	f.Add([]byte(`[null,null,null,null,null,null,null,null,null]`))
	f.Add([]byte(`{"p":"a"}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		fs, err := DecodeFragments(encodeFile(payload))
		if err != nil {
			return
		}
		again, err := DecodeFragments(EncodeFragments(fs))
		if err != nil || !reflect.DeepEqual(again, fs) {
			t.Fatalf("%q: read back %q, %v; want %q", payload, again, err, fs)
		}
	})
}

// FuzzFragment: a page's fragment, written as NewDoc reads the page's
// body, reads as the JSON encoder writes the fragment of the page and of
// its body's sections as read plainly (sections; a body that is not valid
// UTF-8 with U+FFFD for its bad bytes), the same with the body's headings
// given (Page.Headings), and its words are those of a plain count
// (referenceTerms).
func FuzzFragment(f *testing.F) {
	f.Add("Title \"quoted\" <b>", "<p>text\\with\ttabs\x00 and é</p><h2 id=\"a&amp;b\">H &amp; <i>b</i></h2>x<button>Copy</button>y", "group")
	f.Add("\xff\xfe bad", "\u2028 line &nbsp;x&nbsp; <h3 id=\"z\">\u00a0</h3>\v\f \x85", "")
	f.Add("HTTPServer", "<h2 id=\"x\">PipelineTask</h2>caf&eacute; “quoted” one’s \"q\" a\\b <b", "g\"")
	f.Fuzz(func(t *testing.T, title, body, group string) {
		p := Page{Path: "p/" + group, URL: "/p/" + group, Title: title, Group: group, Description: group, Keywords: []string{title, group}, Body: body}
		var got, want fragment
		d := NewDoc(p)
		if err := json.Unmarshal(d.Frag, &got); err != nil {
			t.Fatalf("not JSON: %v: %s", err, d.Frag)
		}
		w := fragment{Path: p.Path, URL: p.URL, Title: p.Title, Group: p.Group, Description: p.Description, Keywords: p.Keywords, Sections: [][]string{}}
		for _, s := range sections(strings.ToValidUTF8(body, "\uFFFD")) {
			w.Sections = append(w.Sections, []string{s.Anchor, s.Heading, s.Text})
		}
		data, _ := json.Marshal(w)
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read back %q, want %q", got, want)
		}
		// With the body's headings found already (its table of
		// contents'), the same Doc; and with another body's, too.
		for _, hs := range []*Headings{FindHeadings(body), FindHeadings("<h2 id=\"x\">x</h2>" + body)} {
			p.Headings = hs
			if again := NewDoc(p); !bytes.Equal(again.Frag, d.Frag) || !reflect.DeepEqual(again.words, d.words) || again.n != d.n {
				t.Fatalf("with headings found before: %s, want %s", again.Frag, d.Frag)
			}
		}
		page := Page{Title: title, Body: body}
		d = NewDoc(page)
		if wantTerms, wantN := referenceTerms(page); len(d.words) < maxPageTerms {
			terms := map[string]uint32{}
			for _, term := range d.words {
				terms[term.Word] = term.F
			}
			if !reflect.DeepEqual(terms, wantTerms) || d.n != wantN {
				t.Fatalf("terms %v (length %d), want %v (length %d)", terms, d.n, wantTerms, wantN)
			}
		}
	})
}

// referenceTerms counts the terms of page p as NewDoc does, plainly: each
// word eachWord finds (lowercased) and its camel-case parts, weighted by
// field, the best field kept; the title's phrases; and the page's length
// in words. p has no description or keywords.
func referenceTerms(p Page) (map[string]uint32, int) {
	f, field, n := map[string]uint32{}, map[string]uint32{}, 0
	count := func(w string, weight, fd uint32) {
		f[w] += weight
		field[w] = max(field[w], fd)
	}
	add := func(s string, weight, fd uint32) {
		eachWord(s, func(w string, start, end int) {
			count(w, weight, fd)
			for _, part := range camelParts(s[start:end]) {
				count(part, weight, fd)
			}
			n++
		})
	}
	add(p.Title, weightTitle, fieldTitle)
	for _, w := range titleTerms(p.Title) {
		count(w, weightTitle, fieldTitle)
	}
	for _, sec := range sections(p.Body) {
		add(sec.Heading, weightHeading, fieldHeading)
		add(sec.Text, weightBody, fieldBody)
	}
	out := map[string]uint32{}
	for w, x := range f {
		out[w] = min(x, maxFreq)<<2 | field[w]
	}
	return out, n
}
