package search

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"sync"
)

// Index is a search index written by a build, opened from the site's
// output (Open): it loads chunks and fragments as queries need them, as
// the reader's browser does. It is safe for concurrent use.
type Index struct {
	read reader
	meta meta

	mu     sync.Mutex
	chunks map[int]*chunk
	frags  map[int]*fragmentFile // by id/FragmentGroup
}

// fragmentFile is a fragment file's fragments, by id%FragmentGroup.
type fragmentFile [FragmentGroup]*fragment

// chunk is a chunk's payload: its words, and for each the pages that hold
// it as [id delta, frequency, ...].
type chunk struct {
	Words    []string   `json:"w"`
	Postings [][]uint32 `json:"p"`
}

// Open opens the search index of the site whose output is fsys (a folder
// holding _lectern/search/meta.js). It reads only the meta file.
func Open(fsys fs.FS) (*Index, error) {
	ix := &Index{
		read:   func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) },
		chunks: map[int]*chunk{}, frags: map[int]*fragmentFile{},
	}
	var err error
	if ix.meta, err = ix.read.meta(); err != nil {
		return nil, err
	}
	return ix, nil
}

// Pages returns the number of pages in the index.
func (ix *Index) Pages() int { return ix.meta.Pages }

// reader reads a file of the index by its name: from a site's output
// (Open), or from a rebuild's previous output (Update).
type reader func(name string) ([]byte, error)

// payload returns the payload of the index file name.
func (r reader) payload(name string) ([]byte, error) {
	data, err := r(name)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	payload, err := decodeFile(data)
	if err != nil {
		return nil, fmt.Errorf("search: %s: %w", name, err)
	}
	return payload, nil
}

// json reads the index file name into v, and returns the size of its
// payload.
func (r reader) json(name string, v any) (int, error) {
	payload, err := r.payload(name)
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return 0, fmt.Errorf("search: %s: %w", name, err)
	}
	return len(payload), nil
}

// meta reads the meta file, checked: its version, its chunks in order
// (a word's chunk is found by binary search), and its pages' ids bounded.
func (r reader) meta() (meta, error) {
	var m meta
	if _, err := r.json(MetaFile, &m); err != nil {
		return m, err
	}
	if m.Version != version {
		return m, fmt.Errorf("search: %s: index version %d, want %d (build the site again)", MetaFile, m.Version, version)
	}
	for i := 1; i < len(m.Chunks); i++ {
		if !less16(m.Chunks[i-1][0], m.Chunks[i][0]) {
			return m, fmt.Errorf("search: %s: chunks out of order", MetaFile)
		}
	}
	if len(m.Lens) > MaxID+1 {
		return m, fmt.Errorf("search: %s: %d page ids, more than %d", MetaFile, len(m.Lens), MaxID+1)
	}
	return m, nil
}

// chunk reads the chunk file name (under Dir), checked, and returns the
// size of its payload.
func (r reader) chunk(name string) (chunk, int, error) {
	var c chunk
	size, err := r.json(Dir+name, &c)
	if err != nil {
		return c, 0, err
	}
	if len(c.Postings) != len(c.Words) {
		return c, 0, fmt.Errorf("search: %s: %d words, %d posting lists", name, len(c.Words), len(c.Postings))
	}
	return c, size, nil
}

// chunk returns chunk i of the meta file, read once.
func (ix *Index) chunk(i int) (*chunk, error) {
	return readOnce(ix, ix.chunks, i, func(c *chunk) (err error) {
		*c, _, err = ix.read.chunk(ix.meta.Chunks[i][1])
		return err
	})
}

// fragment returns the fragment of page id, its file read once.
func (ix *Index) fragment(id int) (*fragment, error) {
	ff, err := readOnce(ix, ix.frags, id/FragmentGroup, func(ff *fragmentFile) error {
		name := FragmentFile(id)
		payload, err := ix.read.payload(name)
		if err != nil {
			return err
		}
		raw, err := splitFragments(payload)
		if err != nil {
			return fmt.Errorf("search: %s: %w", name, err)
		}
		for i, r := range raw {
			if r == nil {
				continue
			}
			ff[i] = new(fragment)
			if err := json.Unmarshal(r, ff[i]); err != nil {
				return fmt.Errorf("search: %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if f := ff[id%FragmentGroup]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("search: %s holds no page %d", FragmentFile(id), id)
}

// readOnce returns m[key], or reads it (read fills a new value) and keeps
// it there. Two queries may read the same file at once; the last kept wins.
func readOnce[V any](ix *Index, m map[int]*V, key int, read func(*V) error) (*V, error) {
	ix.mu.Lock()
	v := m[key]
	ix.mu.Unlock()
	if v != nil {
		return v, nil
	}
	v = new(V)
	if err := read(v); err != nil {
		return nil, err
	}
	ix.mu.Lock()
	m[key] = v
	ix.mu.Unlock()
	return v, nil
}

// chunksFor returns the chunks that may hold words starting with prefix:
// [lo, hi] in the meta file's list.
func (ix *Index) chunksFor(prefix string) (lo, hi int) {
	c := ix.meta.Chunks
	if len(c) == 0 {
		return 0, -1
	}
	// The last chunk whose first word is not after prefix.
	lo = sort.Search(len(c), func(i int) bool { return less16(prefix, c[i][0]) }) - 1
	if lo < 0 {
		lo = 0
	}
	hi = lo
	for hi+1 < len(c) && hasPrefix(c[hi+1][0], prefix) {
		hi++
	}
	return lo, hi
}

// Len returns the length in words of page id, 0 when there is none.
func (ix *Index) Len(id int) int {
	if id < 0 || id >= len(ix.meta.Lens) || ix.meta.Lens[id] < 0 {
		return 0
	}
	return ix.meta.Lens[id]
}

// Document is a page of the index as its fragment holds it.
type Document struct {
	ID                      int
	Path, URL, Title, Group string
	Description             string
	Keywords                []string
	Sections                []Section
}

// Documents returns every page of the index, by id. It reads every
// fragment: for tests, tools and an index's server-side use, not queries.
func (ix *Index) Documents() ([]Document, error) {
	var out []Document
	for id, n := range ix.meta.Lens {
		if n < 0 {
			continue // no page of this id
		}
		d, err := ix.Document(id)
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}

// Document returns the page of id (a Result's ID) with its sections, as
// its fragment holds it: the passages server-side retrieval quotes.
func (ix *Index) Document(id int) (*Document, error) {
	if id < 0 || id >= len(ix.meta.Lens) || ix.meta.Lens[id] < 0 {
		return nil, fmt.Errorf("search: no page %d in the index", id)
	}
	f, err := ix.fragment(id)
	if err != nil {
		return nil, err
	}
	d := &Document{ID: id, Path: f.Path, URL: f.URL, Title: f.Title, Group: f.Group, Description: f.Description, Keywords: f.Keywords}
	for _, s := range f.Sections {
		if len(s) == 3 {
			d.Sections = append(d.Sections, Section{Anchor: s[0], Heading: s[1], Text: s[2]})
		}
	}
	return d, nil
}
