package search

import (
	"encoding/json"
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

// errGrown says a chunk grew past twice its bound (or, for a chunk already
// past it, twice its size): the index is built again (Build).
var errGrown = errors.New("search: a chunk outgrew its bound")

// Update patches the index that read reads (the previous build's meta file
// and chunks) for the changed pages: only the chunks holding a word whose
// frequency changed in one of them are written again, with the meta file.
// It returns the new files and the names of the previous chunks that stay
// as they are. It fails when a chunk would grow past twice its bound, or a
// file is not as written, and the caller builds the index again.
func Update(read func(name string) ([]byte, error), changes []Change) (files []File, kept []string, err error) {
	var m meta
	if _, err := decodeJSON(read, MetaFile, &m); err != nil {
		return nil, nil, err
	}
	if m.Version != version {
		return nil, nil, fmt.Errorf("search: index version %d", m.Version)
	}
	// The words whose frequency changed, by page.
	type edit struct {
		id   uint32
		f    uint32 // 0: removed
		word string
	}
	var edits []edit
	for _, c := range changes {
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
	var chunks [][2]string
	for i, c := range m.Chunks {
		es, ok := byChunk[i]
		if !ok {
			kept = append(kept, Dir+c[1])
			chunks = append(chunks, c)
			continue
		}
		var ch chunk
		size, err := decodeJSON(read, Dir+c[1], &ch)
		if err != nil {
			return nil, nil, err
		}
		if len(ch.Words) != len(ch.Postings) {
			return nil, nil, fmt.Errorf("search: chunk %s damaged", c[1])
		}
		words := map[string][]posting{}
		for k, w := range ch.Words {
			words[w] = decodePostings(ch.Postings[k])
		}
		for _, e := range es {
			ps := slices.DeleteFunc(words[e.word], func(p posting) bool { return p.id == e.id })
			if e.f > 0 {
				at, _ := slices.BinarySearchFunc(ps, e.id, func(p posting, id uint32) int { return int(p.id) - int(id) })
				ps = slices.Insert(ps, at, posting{e.id, e.f})
			}
			words[e.word] = ps
		}
		list := make([]string, 0, len(words))
		for w, ps := range words {
			if len(ps) > 0 {
				list = append(list, w)
			}
		}
		if len(list) == 0 {
			continue // the chunk is gone
		}
		slices.SortFunc(list, compare16)
		payload := encodeChunk(list, func(w string) []posting { return words[w] })
		// Twice its bound, or twice what it was for a chunk of one word
		// that all pages hold (which no bound splits).
		if len(payload) > 2*max(maxChunk, size) {
			return nil, nil, errGrown
		}
		data := encodeFile(payload)
		name := "c/" + hashName(data) + ".js"
		files = append(files, File{Name: Dir + name, Data: data})
		chunks = append(chunks, [2]string{list[0], name})
	}
	m.Chunks = chunks
	m.Pages, m.AvgLen = 0, 0
	total := 0
	for _, n := range m.Lens {
		if n >= 0 {
			m.Pages++
			total += n
		}
	}
	if m.Pages > 0 {
		m.AvgLen = float64(total) / float64(m.Pages)
	}
	payload, _ := json.Marshal(m)
	return append([]File{{Name: MetaFile, Data: encodeFile(payload)}}, files...), kept, nil
}

// decodeJSON reads the index file name into v and returns the size of
// its payload.
func decodeJSON(read func(string) ([]byte, error), name string, v any) (int, error) {
	data, err := read(name)
	if err != nil {
		return 0, err
	}
	payload, err := decodeFile(data)
	if err != nil {
		return 0, fmt.Errorf("search: %s: %w", name, err)
	}
	return len(payload), json.Unmarshal(payload, v)
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
