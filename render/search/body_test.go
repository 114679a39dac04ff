package search

import (
	"strings"
	"testing"
)

// TestBodiesReadInLinearTime: bodies of 2 MB built to make a reader go
// back over them (buttons that never end, h2 tags without an id before
// one '>') are read in linear time: each took minutes when every button
// looked for its end again, and every h2 for its tag's end.
func TestBodiesReadInLinearTime(t *testing.T) {
	const size = 2 << 20
	for name, unit := range map[string]string{"buttons": "<button>", "h2 without id": "<h2 x", "h2 with id": `<h2 id="a">`, "h3 ids": `<h3 id="a" xid="b`} {
		body := strings.Repeat(unit, size/len(unit)) + ">"
		NewDoc(Page{Body: body})
		if toc := FindHeadings(body).TOC(); name == "h2 without id" && len(toc) != 0 {
			t.Errorf("%s: toc %v", name, toc)
		}
	}
}
