package render

import (
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Pages are rendered by GOMAXPROCS workers and written by Build's own
// goroutine in navigation order, each as soon as it and every page before
// it are done; at most pageWindow pages per worker wait in memory. The
// output, the warnings and the Progress calls are the same as those of a
// build page by page.
//
// Each page is rendered with its own shallow copy of the site and of the
// theme (pageSite), whose warner and parsed modules are the page's own:
// everything else they share is read-only during rendering, except the
// theme's sidebar cache, which has its own lock. The page's warnings are
// merged into the build's in navigation order.

// pageWindow bounds, per worker, the pages rendered but not yet written.
const pageWindow = 4

// pageResult is a rendered (or reused) page.
type pageResult struct {
	data   []byte
	entry  searchEntry
	warns  []Warning
	deps   []string    // other source files the page read (imported snippets)
	reused bool        // kept from the previous build (cache.go); data is nil
	cached *cachedPage // the page's cache record, when a cache is used
	err    error
}

// pageSite returns a copy of s for rendering one page: its own warner and
// module table, and a theme copy pointing at it.
func (s *site) pageSite() *site {
	base := s.base
	if base == nil {
		base = s
	}
	ps := *base
	ps.base = nil
	ps.w = &warner{}
	ps.mods = map[string]*module{}
	if s.theme != nil {
		th := *s.theme
		th.s = &ps
		ps.theme = &th
	}
	return &ps
}

// renderOne renders page i of s.order in its own site copy. A panic outside
// the body (the theme) is returned as an error rather than ending the
// process from a worker goroutine.
func (s *site) renderOne(i int) (r pageResult) {
	p := s.order[i]
	defer func() {
		if v := recover(); v != nil {
			r = pageResult{err: fmt.Errorf("render: internal error while rendering %s: %v", p.file, v)}
		}
	}()
	ps := s.pageSite()
	data, entry := ps.renderPage(p, p.path+".html")
	r = pageResult{data: data, entry: compactEntry(entry), warns: ps.w.list}
	for f := range ps.mods {
		if f != p.file {
			r.deps = append(r.deps, f)
		}
	}
	return r
}

// prewarmSidebars renders, in navigation order and with the build's own
// warner, the sidebar of every section, so that warnings the sidebars
// raise (broken links of the configuration) are found in the same order
// whatever the scheduling of the workers. It mirrors the choice of the
// section in theme.view.
func (s *site) prewarmSidebars() {
	if s.theme == nil {
		return
	}
	for _, p := range s.order {
		s.theme.sidebar(s.sectionOf(p), p.path+".html")
	}
}

// sectionOf returns the navigation section whose sidebar page p shows: the
// innermost division of its first appearance, or the root.
func (s *site) sectionOf(p *page) *Nav {
	root := s.cfg.Nav
	for i, n := range s.theme.chains[p.path] {
		if i > 0 && n.IsDivision() {
			root = n
		}
	}
	return root
}

// renderPages calls render(i) (s.renderOne, or the cache's reuse-or-render)
// for every page of s.order on the workers and hands each result, in
// order, to emit. It returns the first
// error of emit or of a worker, or ctx.Err() when ctx is done; all
// goroutines have ended when it returns.
func (s *site) renderPages(ctx context.Context, render func(i int) pageResult, emit func(i int, r pageResult) error) error {
	n := len(s.order)
	if n == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	// The page renderers copy a snapshot of the site, never s itself,
	// whose counters this goroutine updates while they run.
	snap := *s
	s.base = &snap
	defer func() { s.base = nil }()
	results := make([]chan pageResult, n)
	for i := range results {
		results[i] = make(chan pageResult, 1)
	}
	tokens := make(chan struct{}, workers*pageWindow)
	jobs := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	wg.Add(1)
	go func() { // feeds the pages in order, at most the window ahead
		defer wg.Done()
		defer close(jobs)
		for i := range n {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					results[i] <- pageResult{err: err}
					continue
				}
				results[i] <- render(i)
			}
		}()
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		var r pageResult
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		if err := emit(i, r); err != nil {
			return err
		}
		<-tokens
	}
	return nil
}

// merge adds warnings found by a page's own warner, as if they had been
// found by w: once each, at most maxWarningsPerFile per file.
func (w *warner) merge(list []Warning) {
	for _, wa := range list {
		if wa.Line == 0 && wa.Message == moreWarningsMessage {
			// The page alone had more than the limit for this file: w
			// has (at least) as many.
			if w.seen == nil {
				w.seen, w.perFile = map[Warning]bool{}, map[string]int{}
			}
			w.perFile[wa.File] = max(w.perFile[wa.File], maxWarningsPerFile)
		}
		w.add(wa.File, wa.Line, "%s", wa.Message)
	}
}

// moreWarningsMessage is the summary warner.add puts after the last
// warning kept for a file.
const moreWarningsMessage = "more warnings for this file were left out"

// loadJob is a navigation page to read.
type loadJob struct {
	entry NavEntry
	file  string
}

// loadPages reads and parses the pages of jobs on GOMAXPROCS workers and
// adds them, in order, to s.pages, s.entries and s.order; their warnings
// are merged in the same order. A read error stops the load; the first in
// navigation order is returned.
func (s *site) loadPages(jobs []loadJob) error {
	type loaded struct {
		p     *page
		sum   string
		warns []Warning
		err   error
	}
	res := make([]loaded, len(jobs))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				data, err := fs.ReadFile(s.src, j.file)
				if err != nil {
					res[i].err = fmt.Errorf("render: read %s: %w", j.file, err)
					failed.Store(true)
					return
				}
				if s.srcSums != nil {
					res[i].sum = sum(data)
				}
				w := &warner{}
				res[i].p = loadPage(j.entry.Page, j.file, string(data), w)
				res[i].warns = w.list
			}
		}()
	}
	wg.Wait()
	for i, r := range res {
		if r.err != nil {
			return r.err
		}
		if r.p == nil { // after another page's error
			continue
		}
		e := jobs[i].entry
		s.w.merge(r.warns)
		if s.srcSums != nil {
			s.srcSums[e.Page] = r.sum
		}
		s.pages[e.Page] = r.p
		s.entries[e.Page] = e
		s.order = append(s.order, r.p)
	}
	return nil
}

// compactEntry copies the strings of a search entry that may be slices of
// the page's rendered body (the text, heading ids), so that the entries
// kept until the end of the build do not hold every body in memory.
func compactEntry(e searchEntry) searchEntry {
	e.Text = strings.Clone(e.Text)
	if len(e.Headings) > 0 {
		hs := make([]searchHeading, len(e.Headings))
		for i, h := range e.Headings {
			h.ID, h.Text = strings.Clone(h.ID), strings.Clone(h.Text)
			hs[i] = h
		}
		e.Headings = hs
	}
	return e
}
