package render

import (
	"fmt"
	"sync"

	"lectern.dev/lectern/render/search"
)

// searchStream makes the search index while the pages are written, in a
// build that renders every page anew (no previous build whose ids to
// keep): a page's id is then its number among the pages in the index, in
// navigation order, known as it is written. One goroutine adds each
// page's words to the postings (search.Builder) and compresses each
// fragment file once its pages are in; the goroutine that writes the
// pages writes those files between pages. The page's fragment is dropped
// once compressed, not held to the end of the build. What is left for
// writeSearchIndex is the last fragment file, the meta file and the
// chunks (finish).
type searchStream struct {
	ids    []int // by page in s.order, -1 for none
	next   int   // the next id
	in     chan streamPage
	closed bool // in is closed
	done   chan struct{}

	// The goroutine's own.
	b     *search.Builder
	group search.Fragments
	err   error

	mu    sync.Mutex
	ready []search.File // fragment files compressed, not yet written
}

// streamPage is a page handed to the stream's goroutine.
type streamPage struct {
	id  int
	doc search.Doc
}

// streamBuffer is how many pages may wait for the stream's goroutine.
const streamBuffer = 64

// newSearchStream starts the stream of a build of pages pages.
func newSearchStream(pages int) *searchStream {
	st := &searchStream{
		ids:  make([]int, 0, pages),
		in:   make(chan streamPage, streamBuffer),
		done: make(chan struct{}),
		b:    search.NewBuilder(),
	}
	go st.run(st.in)
	return st
}

// streamSearch reports whether the build makes its search index as it
// writes the pages (searchStream): with search, and no previous build.
func (s *site) streamSearch() bool {
	return s.opts.features().Search && (s.cache == nil || s.cache.prev == nil)
}

// run adds the pages to the index until in is closed.
func (st *searchStream) run(in <-chan streamPage) {
	defer close(st.done)
	for p := range in {
		if st.err != nil {
			continue // drained, so that add never blocks
		}
		if err := st.b.Add(p.id, p.doc); err != nil {
			st.err = err
			continue
		}
		st.group[p.id%search.FragmentGroup] = p.doc.Frag
		if p.id%search.FragmentGroup == search.FragmentGroup-1 {
			st.compress(p.id)
		}
	}
}

// compress compresses the fragment file of the group of id, and empties
// the group.
func (st *searchStream) compress(id int) {
	f := search.File{Name: search.FragmentFile(id), Data: search.EncodeFragments(&st.group)}
	st.group = search.Fragments{}
	st.mu.Lock()
	st.ready = append(st.ready, f)
	st.mu.Unlock()
}

// add hands page i's document (written next, in navigation order) to
// the stream, which owns it now.
func (st *searchStream) add(i int, d search.Doc) error {
	if len(st.ids) != i {
		return fmt.Errorf("render: internal error: page %d streamed to the search index after %d", i, len(st.ids))
	}
	// (searchDoc gives a page out of search an empty Doc; with no
	// previous build, no page is reused with its old one.)
	if !d.InIndex() {
		st.ids = append(st.ids, -1)
		return nil
	}
	if d.Frag == nil {
		return fmt.Errorf("render: internal error: no search fragment for page %d", i)
	}
	st.ids = append(st.ids, st.next)
	st.in <- streamPage{id: st.next, doc: d}
	st.next++
	return nil
}

// writeReady writes the fragment files compressed so far.
func (st *searchStream) writeReady(s *site) error {
	st.mu.Lock()
	files := st.ready
	st.ready = nil
	st.mu.Unlock()
	for _, f := range files {
		if err := s.write(f.Name, f.Data); err != nil {
			return err
		}
	}
	return nil
}

// close ends the stream's goroutine once the pages it was given are in;
// it may be called more than once, and on nil.
func (st *searchStream) close() {
	if st == nil {
		return
	}
	if !st.closed {
		close(st.in)
		st.closed = true
	}
	<-st.done
}

// finish writes what is left of the index once every page was added:
// the last fragment file, then the meta file and the chunks; it marks
// every file of the index in generated and sets s.searchIDs.
func (st *searchStream) finish(s *site, generated map[string]bool) error {
	st.close()
	if st.err != nil {
		return st.err
	}
	if st.next%search.FragmentGroup != 0 {
		st.compress(st.next - 1)
	}
	if err := st.writeReady(s); err != nil {
		return err
	}
	for id := 0; id < st.next; id += search.FragmentGroup {
		generated[search.FragmentFile(id)] = true
	}
	s.searchIDs = st.ids
	files := st.b.Files()
	if err := s.writeParallel(files); err != nil {
		return err
	}
	for _, f := range files {
		generated[f.Name] = true
	}
	if s.cache != nil {
		s.cache.recordSearchFiles(files)
	}
	return nil
}
