package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchBody is a rendered page body like bench/gencorpus's: sections
// under h2 and h3 headings of sentences from a vocabulary of a few
// hundred words, some capitalised, with inline code, links and
// typographic quotes.
func benchBody(r *rand.Rand) string {
	vocab := strings.Fields("value site user to by can worker record disk latency thread function tab config be status from table see project trace batch role timeout policy delete log error an column warning network enable create install token process stream struct build default group secret configure should stop type index quota retry response with handler section module method request release throughput permission account schema will update are verify the version cache field for limit list team interface image in query output render start plan file event folder metric run get path domain package queue buffer search set deploy")
	var b strings.Builder
	sentence := func() {
		n := 8 + r.IntN(10)
		for i := range n {
			w := vocab[r.IntN(len(vocab))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, " with <code>%s_%s</code>", vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))])
		}
		if r.IntN(3) == 0 { // typographic quotes and dashes, as real docs have
			fmt.Fprintf(&b, " — the “%s” one’s", vocab[r.IntN(len(vocab))])
		}
		b.WriteString(". ")
	}
	for s := range 6 {
		level := 2 + s%2
		fmt.Fprintf(&b, "<h%d id=\"section-%d\">%s section %d</h%d>\n<p>", level, s, vocab[r.IntN(len(vocab))], s, level)
		for range 4 + r.IntN(4) {
			sentence()
		}
		fmt.Fprintf(&b, "see <a href=\"/t%02d/p%05d\">%s %s</a>.</p>\n", r.IntN(40), r.IntN(10000), vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))])
	}
	return b.String()
}

// BenchmarkNewDoc makes the Doc of pages like bench/gencorpus's, the
// search index's cost on each page's worker.
func BenchmarkNewDoc(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pages := make([]Page, 64)
	bytes := 0
	for i := range pages {
		pages[i] = Page{Path: fmt.Sprint("p", i), URL: fmt.Sprint("/p", i), Title: fmt.Sprintf("Update role %d", i),
			Description: "Document output deploy worker query output process of render start.", Body: benchBody(r)}
		bytes += len(pages[i].Body)
	}
	b.SetBytes(int64(bytes / len(pages)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		NewDoc(pages[i%len(pages)])
		i++
	}
}
