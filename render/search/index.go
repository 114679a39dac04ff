package search

import (
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"unicode/utf8"

	"lectern.dev/lectern/render/features"
)

// The index's files, under Dir: the meta file, which the reader's browser
// loads first (the pages' lengths and where each chunk of words begins),
// the chunks (c/HASH.js: consecutive words of the sorted vocabulary with
// the pages that hold each, named by their content, so a chunk is never
// stale beside a newer meta file) and the fragment files (f/N.js: the
// fragments of the pages of ids N*FragmentGroup and the FragmentGroup-1
// after it, each a page's URL, title and text by section, for its result
// and excerpt).
const (
	Dir      = features.SearchDir // the files that serve search alone
	MetaFile = Dir + "meta.js"
)

// FragmentGroup is how many pages' fragments a fragment file holds: one
// compressed stream of several pages is a fifth smaller than each on its
// own and takes a third less time to compress, and a build writes an
// eighth of the files (the reader's first result loads some 20 KB of
// fragments, not 3). query.js has the same number.
const FragmentGroup = 8

// FragmentFile is the name of the file holding the fragment of the page of
// index id id.
func FragmentFile(id int) string { return Dir + "f/" + strconv.Itoa(id/FragmentGroup) + ".js" }

// Chunk sizes, in bytes of payload: a chunk ends after a word whose hash
// says so once it holds minChunk bytes (so that a change to the words of
// one chunk moves no other chunk's ends), and always at maxChunk.
const (
	minChunk = 24 << 10
	maxChunk = 96 << 10
	cutMask  = 7
)

// MaxID bounds a page's id in the index (ids number the pages from 0, so
// it bounds the pages too): the meta file holds a length for every id up
// to the largest, and an id read back from a damaged rebuild cache or
// index must not size it.
const MaxID = 1<<22 - 1

// Entry is a page of the index being built: its id (its number in the
// postings, which FragmentFile names its fragment's file by) and its
// words (Doc.Terms).
type Entry struct {
	ID    int
	Terms []byte
}

// File is a file of the index.
type File struct {
	Name string
	Data []byte
}

// meta is the payload of the meta file.
type meta struct {
	Version int         `json:"v"`
	Pages   int         `json:"n"`
	AvgLen  float64     `json:"avg"`
	Lens    []int       `json:"dl"` // by id, -1 for no page
	Chunks  [][2]string `json:"c"`  // first word, file name under Dir
}

const version = 3

// posting is a page holding a word, and the word's weighted frequency.
type posting struct{ id, f uint32 }

// Build returns the index's meta file and chunks for the pages (in any
// order; ids unique). The fragments are the pages' own (Doc.Frag, written
// in FragmentFile(ID) by EncodeFragments). It fails when a page's terms
// are damaged (a rebuild cache's record).
func Build(pages []Entry) ([]File, error) {
	sorted := append([]Entry(nil), pages...)
	slices.SortFunc(sorted, func(a, b Entry) int { return a.ID - b.ID })
	b := NewBuilder()
	for _, e := range sorted {
		if err := b.Add(e.ID, Doc{Terms: e.Terms}); err != nil {
			return nil, err
		}
	}
	return b.Files(), nil
}

// cutChunks writes the chunks of words (sorted as the browser compares
// them) and calls emit with each and its first word. A chunk ends after a
// word whose hash says so once it holds minChunk bytes (so that where it
// ends depends on its own words only), and always at maxChunk.
func cutChunks(words []string, postings func(w string) []posting, emit func(f File, first string)) {
	var c chunkPayload
	flush := func() {
		first := c.first
		data := encodeFile(c.done())
		emit(chunkFile(data), first)
	}
	for _, w := range words {
		c.add(w, postings(w))
		if size := c.size(); size >= maxChunk || size >= minChunk && wordHash(w)&cutMask == 0 {
			flush()
		}
	}
	if c.size() > 0 {
		flush()
	}
}

// appendString appends w as a JSON string: valid UTF-8 as it is but for
// the quote, the backslash and control characters, escaped (a page's
// text is JSON.parse'd, never read as script, so U+2028 and <, >, & need
// no escape); invalid UTF-8 through encoding/json, which replaces it.
func appendString(b []byte, w string) []byte {
	if !utf8.ValidString(w) {
		q, _ := json.Marshal(w)
		return append(b, q...)
	}
	return appendEscaped(b, w)
}

// appendEscaped appends w, valid UTF-8, as a JSON string.
func appendEscaped[T string | []byte](b []byte, w T) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	from := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, w[from:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		from = i + 1
	}
	b = append(b, w[from:]...)
	return append(b, '"')
}

func wordHash(w string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(w))
	return h.Sum32()
}

// chunkFile is the chunk file of data, named by its content.
func chunkFile(data []byte) File {
	return File{Name: features.SearchChunkDir + hashName(data) + ".js", Data: data}
}

func hashName(data []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(data)
	return strconv.FormatUint(h.Sum64(), 36)
}
