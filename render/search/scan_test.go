package search

import (
	"encoding/json"
	"html"
	"reflect"
	"regexp"
	"testing"
)

// headingRE is how TOC once found headings: scan must find the same.
var headingRE = regexp.MustCompile(`(?s)<h([23])[^>]*\sid="([^"]+)"[^>]*>(.*?)</h[23]>`)

func tocByRegexp(body string) []TOCItem {
	var out []TOCItem
	for _, m := range headingRE.FindAllStringSubmatch(body, -1) {
		t := text(m[3])
		if t == "" {
			continue
		}
		level := 2
		if m[1] == "3" {
			level = 3
		}
		out = append(out, TOCItem{ID: html.UnescapeString(m[2]), Text: t, Level: level})
	}
	return out
}

// sections is the plain reading of a body's sections that NewDoc's, as
// it reads the body once (body.go), must match: the text (text) of the
// part before the first heading, unless empty, then of each heading and
// the part up to the next.
func sections(body string) []Section {
	var secs []Section
	anchor, title, at := "", "", 0
	add := func(to int) {
		if t := text(body[at:to]); anchor != "" || t != "" {
			secs = append(secs, Section{Anchor: anchor, Heading: title, Text: t})
		}
	}
	eachHeading(body, func(h heading) {
		add(h.start)
		anchor, title, at = html.UnescapeString(h.id), text(body[h.from:h.to]), h.end
	})
	add(len(body))
	return secs
}

func TestScan(t *testing.T) {
	body := `<p>Intro &amp; more</p><h2 class="x" id="a-b">First <a href="#a-b">#</a></h2><p>one</p>` +
		`<h3 id="c">Second</h3>two <b>bold</b><h2 id="empty"></h2>three<h2>no id</h2>four<h2 id="open">never closed`
	toc, secs := FindHeadings(body).TOC(), sections(body)
	want := []TOCItem{{ID: "a-b", Text: "First #", Level: 2}, {ID: "c", Text: "Second", Level: 3}}
	if !reflect.DeepEqual(toc, want) {
		t.Errorf("toc = %+v", toc)
	}
	wantSecs := []Section{{"", "", "Intro & more"}, {"a-b", "First #", "one"}, {"c", "Second", "two bold"},
		{"empty", "", "three no id four never closed"}}
	if !reflect.DeepEqual(secs, wantSecs) {
		t.Errorf("sections = %+v", secs)
	}
	if got := tocByRegexp(body); !reflect.DeepEqual(got, toc) {
		t.Errorf("the regexp finds %+v", got)
	}
	var frag fragment
	if err := json.Unmarshal(NewDoc(Page{Body: body}).Frag, &frag); err != nil {
		t.Fatal(err)
	}
	for i, s := range wantSecs {
		if i >= len(frag.Sections) || !reflect.DeepEqual(frag.Sections[i], []string{s.Anchor, s.Heading, s.Text}) {
			t.Fatalf("NewDoc's sections = %q", frag.Sections)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`<h2 id="a">A</h2>x<h3 id="b">B</h3>`, `<h2 data-id="x" id="y">Y</h3>`, `<h2 id="a" id="b">t</h2>`,
		`<h23 id="z">q</h2>`, `<h2 id="">e</h2><h3 id="q">r</h3>`, `<h2 id="a>b">c</h2>`, `<h2	id="t">tab</h2>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		toc, secs := FindHeadings(body).TOC(), sections(body)
		if want := tocByRegexp(body); !reflect.DeepEqual(toc, want) && !(len(toc) == 0 && len(want) == 0) {
			t.Fatalf("scan: %+v\nregexp: %+v", toc, want)
		}
		for _, s := range secs {
			if s.Anchor == "" && s.Text == "" {
				t.Fatalf("an empty section: %+v", secs)
			}
		}
	})
}
