package render

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/search"
)

// Pages are rendered by GOMAXPROCS workers and written by Build's own
// goroutine in navigation order, each as soon as it and every page before
// it are done; at most pageWindow pages per worker wait in memory. The
// output, the warnings and the Progress calls are the same as those of a
// build page by page.
//
// Each page is rendered with its own shallow copy of the site and of the
// theme (pageSite), whose diag.Warner and parsed modules are the page's own:
// everything else they share is read-only during rendering, except the
// theme's sidebar cache, which has its own lock. The page's warnings are
// merged into the build's in navigation order.

// pageWindow bounds, per worker, the pages rendered but not yet written.
const pageWindow = 4

// pageResult is a rendered (or reused) page.
type pageResult struct {
	data   []byte
	md     []byte     // the page as Markdown (page_markdown.go); nil for a reused page
	doc    search.Doc // the page's search document (render/search); for a reused page, its Terms only
	warns  []diag.Warning
	deps   []string    // other source files the page read (imported snippets)
	reused bool        // kept from the previous build (rebuild_pages.go); data is nil
	cached *cache.Page // the page's cache record, when a cache is used
	err    error
	// lookups are what the page looked up in the site: its links, the
	// snippets and modules it uses (links.Lookups).
	lookups []string
}

// pageSite returns a copy of s for rendering one page: its own diag.Warner,
// module table and link resolver (which records the page's lookups for the
// rebuild cache), and a theme copy pointing at it.
func (s *site) pageSite() *site {
	base := s.base
	if base == nil {
		base = s
	}
	ps := *base
	ps.base = nil
	ps.w = &diag.Warner{}
	ps.mods = map[string]*mdx.Module{}
	if base.links != nil {
		lk := *base.links
		lk.Lookups = &links.Lookups{}
		ps.links = &lk
	}
	if s.theme != nil {
		ps.theme = s.theme.ForWarner(ps.w)
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
			r = pageResult{err: fmt.Errorf("render: internal error while rendering %s: %v", p.File, v)}
		}
	}()
	if err := s.ensureBody(p); err != nil {
		return pageResult{err: err}
	}
	ps := s.pageSite()
	data, doc := ps.renderPage(p, p.Path+".html")
	md := ps.pageMarkdown(p, p.Path+".html") // page_markdown.go
	r = pageResult{data: data, doc: doc, warns: ps.w.List(), md: md}
	if ps.links != nil {
		r.lookups = ps.links.Lookups.List
	}
	for f := range ps.mods {
		if f != p.File {
			r.deps = append(r.deps, f)
		}
	}
	return r
}

// renderPages calls render(i) (s.renderOne, or the cache's reuse-or-render)
// for every page of s.order on the workers and hands each result, in
// order, to emit. It returns the first
// error of emit or of a worker, or ctx.Err() when ctx is done; all
// goroutines have ended when it returns.
//
// With reuse (a build with a cache), reuse(i) is first called for every
// page, on the workers, in contiguous ranges: the pages it returns a
// result for (ok) are not rendered. It is meant for a rebuild, where it
// is most pages, and costs less than the pipeline below. The first pages
// it does not keep (as many as the window holds) are rendered there and
// then, while the other workers go on checking theirs; the others go
// through the pipeline.
func (s *site) renderPages(ctx context.Context, reuse func(i int) (pageResult, bool), render func(i int) pageResult, emit func(i int, r pageResult) error) error {
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
	pl := &pagePipeline{ctx: ctx, render: render}
	todo := n
	if reuse != nil {
		todo = pl.reusePass(n, workers, reuse)
	}
	pl.results = make([]chan pageResult, n)
	for i := range pl.results {
		if pl.done == nil || !pl.done[i] {
			pl.results[i] = make(chan pageResult, 1)
		}
	}
	pl.tokens = make(chan struct{}, workers*pageWindow)
	pl.jobs = make(chan int)
	pl.stop = make(chan struct{})
	defer func() {
		close(pl.stop)
		pl.wg.Wait()
	}()
	pl.wg.Add(1)
	go pl.feed(n)
	for range min(workers, todo) {
		pl.wg.Add(1)
		go pl.work()
	}
	return pl.emitAll(n, emit)
}

// pagePipeline is the state renderPages shares with its goroutines.
type pagePipeline struct {
	ctx    context.Context
	render func(i int) pageResult
	// kept and done are, with reuse, the results of the reuse pass by
	// page, and whether there is one; nil without reuse.
	kept []pageResult
	done []bool
	// results are the channels the workers send the other pages' results
	// on, by page.
	results []chan pageResult
	tokens  chan struct{} // a page fed and not yet emitted holds one
	jobs    chan int      // the pages to render, in order
	stop    chan struct{} // closed when renderPages returns
	wg      sync.WaitGroup
}

// reusePass calls reuse(i) for every page on the workers, in contiguous
// ranges, and renders the first pages it does not keep, as many as the
// window holds. It sets pl.kept and pl.done and returns how many pages
// are left for the pipeline.
func (pl *pagePipeline) reusePass(n, workers int, reuse func(i int) (pageResult, bool)) int {
	kept, done := make([]pageResult, n), make([]bool, n)
	pl.kept, pl.done = kept, done
	ctx, render := pl.ctx, pl.render
	var wg sync.WaitGroup
	var left, budget atomic.Int64
	budget.Store(int64(workers * pageWindow))
	chunk := (n + workers - 1) / workers
	for w := range workers {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			found := 0
			for i := from; i < to; i++ {
				kept[i], done[i] = reuse(i)
				if !done[i] && ctx.Err() == nil && budget.Add(-1) >= 0 {
					kept[i], done[i] = render(i), true
				}
				if done[i] {
					found++
				}
			}
			left.Add(int64(to - from - found))
		}(w*chunk, min(n, (w+1)*chunk))
	}
	wg.Wait()
	return int(left.Load())
}

// feed sends the pages the reuse pass did not do to pl.jobs, in order, at
// most the window ahead of those emitted; it closes pl.jobs when done.
func (pl *pagePipeline) feed(n int) {
	defer pl.wg.Done()
	defer close(pl.jobs)
	for i := range n {
		if pl.done != nil && pl.done[i] {
			continue
		}
		select {
		case pl.tokens <- struct{}{}:
		case <-pl.stop:
			return
		}
		select {
		case pl.jobs <- i:
		case <-pl.stop:
			return
		}
	}
}

// work renders the pages of pl.jobs, sending each result on its channel
// (once ctx is done, the result is ctx's error).
func (pl *pagePipeline) work() {
	defer pl.wg.Done()
	for i := range pl.jobs {
		if err := pl.ctx.Err(); err != nil {
			pl.results[i] <- pageResult{err: err}
			continue
		}
		pl.results[i] <- pl.render(i)
	}
}

// emitAll hands each page's result, in order, to emit, as soon as it is
// there. It returns the first error of emit or of a result, or ctx.Err()
// when ctx is done.
func (pl *pagePipeline) emitAll(n int, emit func(i int, r pageResult) error) error {
	for i := range n {
		if err := pl.ctx.Err(); err != nil {
			return err
		}
		if pl.done != nil && pl.done[i] {
			r := pl.kept[i]
			pl.kept[i] = pageResult{}
			if r.err != nil {
				return r.err
			}
			if err := emit(i, r); err != nil {
				return err
			}
			continue
		}
		var r pageResult
		select {
		case r = <-pl.results[i]:
		case <-pl.ctx.Done():
			return pl.ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		if err := emit(i, r); err != nil {
			return err
		}
		<-pl.tokens
	}
	return nil
}

// loadJob is a navigation page to read.
type loadJob struct {
	entry config.NavEntry
	file  string
	// gen is the page the OpenAPI navigation generated, which is not read.
	gen *page.Page
	// unlisted is set for a page of the repository that the navigation
	// does not list.
	unlisted bool
}

// loadPages reads and parses the pages of jobs on GOMAXPROCS workers and
// adds them, in order, to s.pages, s.entries and s.order; their warnings
// are merged in the same order. A read error stops the load; the first in
// navigation order is returned. With a cache, a page whose source is
// unchanged is taken from the previous manifest instead (cache.PageLoad).
func (s *site) loadPages(jobs []loadJob) error {
	type loaded struct {
		p     *page.Page
		sum   string
		warns []diag.Warning
		lazy  bool
		rec   *cache.Source // for the next manifest, with a cache
		err   error
	}
	res := make([]loaded, len(jobs))
	ms := s.manifest
	// An error stops the pool; the loop below returns the first in
	// navigation order.
	_ = forEach(len(jobs), runtime.GOMAXPROCS(0), func(i int) error {
		j := jobs[i]
		if j.gen != nil {
			res[i].p = j.gen
			return nil
		}
		var st cache.Stamp
		if ms != nil {
			st = s.statFile(j.file)
			if old := ms.Trusted(j.file, st); old != nil && old.Load != nil && old.Load.Nav == j.entry.Page {
				res[i] = loaded{p: old.Load.Page(j.entry.Page, j.file), sum: old.Sum, warns: old.Load.Warnings, lazy: true,
					rec: &cache.Source{Stamp: st, Sum: old.Sum, Load: old.Load}}
				return nil
			}
		}
		data, err := s.readFile(j.file)
		if err != nil {
			res[i].err = limits.ReadError(j.file, err)
			return res[i].err
		}
		if ms == nil {
			w := &diag.Warner{}
			res[i].p = page.Load(j.entry.Page, j.file, string(data), w)
			res[i].warns = w.List()
			return nil
		}
		h := cache.Sum(data)
		if old := ms.Previous(j.file); old != nil && old.Sum == h && old.Load != nil && old.Load.Nav == j.entry.Page {
			res[i] = loaded{p: old.Load.Page(j.entry.Page, j.file), sum: h, warns: old.Load.Warnings, lazy: true,
				rec: &cache.Source{Stamp: st, Sum: h, Load: old.Load}}
			return nil
		}
		w := &diag.Warner{}
		p := page.Load(j.entry.Page, j.file, string(data), w)
		res[i] = loaded{p: p, sum: h, warns: w.List(), rec: &cache.Source{Stamp: st, Sum: h, Load: cache.NewPageLoad(p, w.List())}}
		return nil
	})
	if ms != nil {
		s.srcSums = make(map[string]string, len(jobs))
		s.lazy = make(map[*page.Page]*lazyBody, len(jobs))
		// The pages are the first sources recorded (buildCache.fileSum
		// runs once the site is loaded): room for every file.
		ms.ResetSources(len(s.files))
	}
	for i, r := range res {
		if r.err != nil {
			return r.err
		}
		if r.p == nil { // after another page's error
			continue
		}
		if r.rec != nil {
			ms.Put(jobs[i].file, r.rec)
		}
		e := jobs[i].entry
		r.p.Unlisted = jobs[i].unlisted
		s.w.Merge(r.warns)
		if s.srcSums != nil {
			s.srcSums[e.Page] = r.sum
		}
		if r.lazy {
			s.lazy[r.p] = &lazyBody{}
		}
		s.pages[e.Page] = r.p
		s.entries[e.Page] = e
		s.order = append(s.order, r.p)
	}
	return nil
}

// lazyBody is the state of a page loaded from the cache without its body.
type lazyBody struct {
	once sync.Once
	err  error
}

// ensureBody reads the body and raw front matter of page p when it was
// loaded from the cache without them. It is safe for concurrent use; it
// sets only those fields of p, which only the page's own render reads.
// The warnings of loading it were already given (from the cache); they
// are not given again. Should the source have changed since it was
// loaded (an edit during the build), the body read is the new one.
func (s *site) ensureBody(p *page.Page) error {
	l := s.lazy[p]
	if l == nil {
		return nil
	}
	l.once.Do(func() {
		data, err := s.readFile(p.File)
		if err != nil {
			l.err = limits.ReadError(p.File, err)
			return
		}
		q := page.Load(p.Path, p.File, string(data), &diag.Warner{})
		p.Body, p.Front.Raw = q.Body, q.Front.Raw
	})
	return l.err
}
