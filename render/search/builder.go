package search

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Builder makes the index's meta file and chunks from its pages, added
// one at a time (Add): a build adds each page as it is written, so that
// only the sorting and writing of the vocabulary are left once the last
// one is. Build is a Builder given every page at once.
type Builder struct {
	vocab   wordSet     // the words, by place
	lists   [][]posting // by place: the pages of the word
	lens    []int       // by id, -1 for no page
	last    int         // the id added last
	ordered bool        // each id added after a smaller one: the lists are in id order
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{vocab: wordSet{slots: make([]uint64, 1<<13)}, last: -1, ordered: true}
}

// Add adds the page of index id id, whose Doc is d (NewDoc's, or one
// with only the Terms of a rebuild cache's record). An id added twice, or
// damaged terms, are an error.
func (b *Builder) Add(id int, d Doc) error {
	if id < 0 || id > MaxID {
		return fmt.Errorf("search: page id %d out of range (at most %d pages are indexed)", id, MaxID+1)
	}
	if id < len(b.lens) && b.lens[id] >= 0 {
		return fmt.Errorf("search: page %d added twice", id)
	}
	n := d.n
	if d.words != nil {
		for _, t := range d.words {
			b.addWord(t.Word, t.h, uint32(id), t.F)
		}
	} else {
		// Read through once before, so that damaged terms add nothing.
		if _, err := eachTerm(d.Terms, func([]byte, uint32) {}); err != nil {
			return fmt.Errorf("search: page %d: %w", id, err)
		}
		n, _ = eachTerm(d.Terms, func(w []byte, f uint32) {
			h := hashWord(w)
			k, slot := b.vocab.find(string(w), h)
			if k < 0 {
				b.lists = append(b.lists, nil)
				k = b.vocab.put(slot, string(w), h)
			}
			b.lists[k] = append(b.lists[k], posting{uint32(id), f})
		})
	}
	for len(b.lens) <= id {
		b.lens = append(b.lens, -1) // no page of this id (a rebuild's gaps)
	}
	b.lens[id] = n
	b.ordered = b.ordered && id > b.last
	b.last = id
	return nil
}

// addWord adds the posting of page id to word w, of hash h; a new word
// is copied, not to keep the page's text it is part of.
func (b *Builder) addWord(w string, h, id, f uint32) {
	k, slot := b.vocab.find(w, h)
	if k < 0 {
		b.lists = append(b.lists, nil)
		k = b.vocab.put(slot, strings.Clone(w), h)
	}
	b.lists[k] = append(b.lists[k], posting{id, f})
}

// Files returns the index's meta file and chunks, of the pages added.
func (b *Builder) Files() []File {
	words := slices.Clone(b.vocab.words)
	slices.SortFunc(words, compare16)
	list := func(w string) []posting {
		k, _ := b.vocab.find(w, hashWord(w))
		ps := b.lists[k]
		if !b.ordered {
			slices.SortFunc(ps, func(x, y posting) int { return int(x.id) - int(y.id) })
		}
		return ps
	}
	var cs chunkSet
	cutChunks(words, list, cs.add)
	return append([]File{metaFile(b.lens, cs.entries)}, cs.files...)
}

// chunkSet is the chunks written, and the meta file's entries for them.
type chunkSet struct {
	files   []File
	entries [][2]string // first word, file name under Dir
}

// add adds chunk file f, whose first word is first.
func (cs *chunkSet) add(f File, first string) {
	cs.files = append(cs.files, f)
	cs.entries = append(cs.entries, [2]string{first, strings.TrimPrefix(f.Name, Dir)})
}

// metaFile is the meta file of an index of the pages of lengths lens (by
// id, -1 for no page) and chunks: the pages' count and mean length are
// worked out from lens. An index of no page has empty lists, not null,
// which the browser's query reads as lists.
func metaFile(lens []int, chunks [][2]string) File {
	m := meta{Version: version, Lens: lens, Chunks: chunks}
	if m.Lens == nil {
		m.Lens = []int{}
	}
	if m.Chunks == nil {
		m.Chunks = [][2]string{}
	}
	total := 0
	for _, n := range lens {
		if n >= 0 {
			m.Pages++
			total += n
		}
	}
	if m.Pages > 0 {
		m.AvgLen = float64(total) / float64(m.Pages)
	}
	payload, _ := json.Marshal(m)
	return File{Name: MetaFile, Data: encodeFile(payload)}
}
