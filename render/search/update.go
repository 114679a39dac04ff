package search

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// Change is a page whose words changed since the index was built: its id
// and its words before and after (Doc.Terms; nil before for a page added,
// nil after for a page removed).
type Change struct {
	ID       int
	Old, New []byte
}

// Update patches the index that read reads (the previous build's meta file
// and chunks) for the changed pages: only the chunks holding a word whose
// frequency changed in one of them are written again (split when grown
// past maxChunk, joined with the next when shrunk below minChunk), with
// the meta file. It returns the new files and the names of the previous
// chunks that stay as they are. It fails when a file is not as written,
// and the caller builds the index again.
func Update(read func(name string) ([]byte, error), changes []Change) (files []File, kept []string, err error) {
	r := reader(read)
	m, err := r.meta()
	if err != nil {
		return nil, nil, err
	}
	// The words whose frequency changed, by page.
	type edit struct {
		id   uint32
		f    uint32 // 0: removed
		word string
	}
	var edits []edit
	for _, c := range changes {
		if c.ID < 0 || c.ID > MaxID {
			return nil, nil, fmt.Errorf("search: page id %d out of range", c.ID)
		}
		old := map[string]uint32{}
		if c.Old != nil {
			if _, err := eachTerm(c.Old, func(w []byte, f uint32) { old[string(w)] = f }); err != nil {
				return nil, nil, err
			}
		}
		n := -1
		if c.New != nil {
			if n, err = eachTerm(c.New, func(w []byte, f uint32) {
				if old[string(w)] != f {
					edits = append(edits, edit{uint32(c.ID), f, string(w)})
				}
				delete(old, string(w))
			}); err != nil {
				return nil, nil, err
			}
		}
		for w := range old {
			edits = append(edits, edit{uint32(c.ID), 0, w})
		}
		for c.ID >= len(m.Lens) {
			m.Lens = append(m.Lens, -1)
		}
		m.Lens[c.ID] = n
	}
	if len(m.Chunks) == 0 {
		return nil, nil, errors.New("search: an index without chunks")
	}
	// The edits of each chunk.
	byChunk := map[int][]edit{}
	for _, e := range edits {
		i := sort.Search(len(m.Chunks), func(i int) bool { return less16(e.word, m.Chunks[i][0]) }) - 1
		byChunk[max(i, 0)] = append(byChunk[max(i, 0)], e)
	}
	var cs chunkSet
	words := map[string][]posting{}
	// patch reads chunk i into words, applies its edits and returns the
	// size of its payload as it was.
	patch := func(i int) (int, error) {
		ch, size, err := r.chunk(m.Chunks[i][1])
		if err != nil {
			return 0, err
		}
		for k, w := range ch.Words {
			words[w] = decodePostings(ch.Postings[k])
		}
		for _, e := range byChunk[i] {
			ps := slices.DeleteFunc(words[e.word], func(p posting) bool { return p.id == e.id })
			if e.f > 0 {
				at, _ := slices.BinarySearchFunc(ps, e.id, func(p posting, id uint32) int { return int(p.id) - int(id) })
				ps = slices.Insert(ps, at, posting{e.id, e.f})
			}
			words[e.word] = ps
		}
		return size, nil
	}
	for i := 0; i < len(m.Chunks); i++ {
		if _, ok := byChunk[i]; !ok {
			kept = append(kept, Dir+m.Chunks[i][1])
			cs.entries = append(cs.entries, m.Chunks[i]) // (its file kept)
			continue
		}
		clear(words)
		if _, err := patch(i); err != nil {
			return nil, nil, err
		}
		// The chunk keeps its ends, but one that shrank below
		// minChunk takes in the chunks after it until it holds that much,
		// and one that grew past maxChunk is cut as Build cuts (its last
		// part ending where it did).
		list, payload := chunkOf(words)
		for len(payload) < minChunk && i+1 < len(m.Chunks) {
			// Take in chunks until their sizes as read make up the
			// difference, then cut the words once to see (edits may
			// have shrunk them too).
			for size := len(payload); size < minChunk && i+1 < len(m.Chunks); {
				i++
				n, err := patch(i)
				if err != nil {
					return nil, nil, err
				}
				size += n
			}
			list, payload = chunkOf(words)
		}
		switch {
		case len(list) == 0: // the chunk is gone
		case len(payload) <= maxChunk:
			data := encodeFile(payload)
			cs.add(chunkFile(data), list[0])
		default:
			cutChunks(list, func(w string) []posting { return words[w] }, cs.add)
		}
	}
	return append([]File{metaFile(m.Lens, cs.entries)}, cs.files...), kept, nil
}

// chunkOf returns the words that pages hold of words, sorted as the
// browser compares them, and the payload of a chunk of them.
func chunkOf(words map[string][]posting) ([]string, []byte) {
	list := make([]string, 0, len(words))
	for w, ps := range words {
		if len(ps) > 0 {
			list = append(list, w)
		}
	}
	slices.SortFunc(list, compare16)
	return list, encodeChunk(list, func(w string) []posting { return words[w] })
}

func decodePostings(p []uint32) []posting {
	out := make([]posting, 0, len(p)/2)
	id := uint32(0)
	for j := 0; j+1 < len(p); j += 2 {
		id += p[j]
		out = append(out, posting{id, p[j+1]})
	}
	return out
}

// encodeChunk is a chunk's payload: {"w":[words],"p":[[id delta, f, ...], ...]}.
func encodeChunk(words []string, postings func(w string) []posting) []byte {
	var c chunkPayload
	for _, w := range words {
		c.add(w, postings(w))
	}
	return c.done()
}

// chunkPayload writes a chunk's payload a word at a time, in two halves
// (the words, their postings) joined by done.
type chunkPayload struct {
	first  string // the chunk's first word
	ws, ps []byte
}

func (c *chunkPayload) add(w string, postings []posting) {
	if len(c.ws) == 0 {
		c.first = w
		c.start()
	} else {
		c.ws = append(c.ws, ',')
		c.ps = append(c.ps, ',')
	}
	c.ws = appendString(c.ws, w)
	c.ps = appendPostings(c.ps, postings)
}

func (c *chunkPayload) start() {
	c.ws = append(c.ws, `{"w":[`...)
	c.ps = append(c.ps, `"p":[`...)
}

// size is the payload's length so far, 0 for none.
func (c *chunkPayload) size() int { return len(c.ws) + len(c.ps) }

// done returns the payload of the words added, and starts a new chunk.
func (c *chunkPayload) done() []byte {
	if len(c.ws) == 0 {
		c.start()
	}
	out := append(append(append(c.ws, "],"...), c.ps...), "]}"...)
	c.first, c.ws, c.ps = "", nil, c.ps[:0]
	return out
}

// appendPostings appends a word's postings as [id delta, f, ...].
func appendPostings(b []byte, ps []posting) []byte {
	b = append(b, '[')
	prev := uint32(0)
	for k, p := range ps {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(p.id-prev), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(p.f), 10)
		prev = p.id
	}
	return append(b, ']')
}
