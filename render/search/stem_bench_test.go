package search

import "testing"

// stemBenchWords are words of a documentation page, with the endings the
// stemmer works hardest on.
var stemBenchWords = []string{
	"the", "configuration", "of", "pipelines", "is", "generally", "described",
	"in", "running", "transports", "services", "connected", "processing",
	"frames", "authentication", "nationalization", "hopefully", "api", "v2",
	"données", "easily", "conditionally", "relational", "effectiveness",
}

// BenchmarkStem measures Stem per word (go test -run X -bench Stem
// -benchmem ./render/search/), the figure to multiply by a site's word
// count: over stemBenchWords, and over the distinct words of the corpora
// (each as often: real text repeats its short words more).
func BenchmarkStem(b *testing.B) {
	run := func(b *testing.B, words []string) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			Stem(words[i%len(words)])
		}
	}
	b.Run("sample", func(b *testing.B) { run(b, stemBenchWords) })
	b.Run("corpus", func(b *testing.B) { run(b, stemCorpusWords(b)) })
}
