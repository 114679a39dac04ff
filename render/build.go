package render

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/components"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/search"
)

// Options control a build.
type Options struct {
	// BasePath is the URL path prefix the site is served under: "" or like
	// "/docs" (a missing leading slash is added, a trailing one dropped).
	BasePath string
	// Export selects the export form: links are relative and point at
	// .html files, so the folder works from file:// and any static server.
	Export bool
	// SiteURL is the optional absolute origin (and base) for the sitemap
	// and canonical links, e.g. "https://docs.acme.test". When empty the
	// sitemap lists paths only and pages have no canonical link.
	SiteURL string
	// Progress, when set, is called once with (0, total) before the first
	// page and then after each page with done from 1 to total, in order,
	// from the goroutine that called Build.
	Progress func(done, total int)
	// CacheDir, when set, is a folder where the build keeps a manifest of
	// its inputs and outputs (render/cache), so that the next build into the
	// same output.Dir re-renders only the pages whose inputs changed: the
	// page's source, the snippets it imports, its section's sidebar and
	// its neighbours' titles. A change of the configuration, the options,
	// the set of files, any non-page file or the renderer rebuilds all.
	// The output is the same as that of a build without a cache.
	CacheDir string
	// AllowRemote lets the build fetch OpenAPI documents named by an
	// http(s) URL; when false they are not fetched and a Warning says so.
	AllowRemote bool
	// Features are the optional features the pages include, each marked
	// so that features.Site.Transform can remove it later (render/features);
	// nil means features.Default() (search and the "Try it" playground).
	// A feature that is off leaves no trace: without Playground, OpenAPI
	// pages have no "Try it" form and _lectern/playground.js is not
	// written. AssistantURL and AnalyticsURL, when set, are written into
	// the pages; when empty the widget stays inactive until Transform
	// configures it.
	Features *features.Site
	// Exclude lists folders of the source, as slash-separated paths from
	// its root ("site", "build/.cache"), that the build neither reads nor
	// copies: lectern build's output and cache folders when they lie
	// inside the source, which would otherwise be copied into the next
	// output as files of the site.
	Exclude []string
	// Limits bound what the build may read, expand and write (render/limits);
	// the zero value is limits.Default.
	Limits limits.Limits
	// CustomScripts makes every page load the source's .js files, as
	// Mintlify does (custom_scripts.go); off, the site runs none of them.
	CustomScripts bool
}

// excluded reports whether the source folder p is one of Options.Exclude.
func (o *Options) excluded(p string) bool {
	for _, x := range o.Exclude {
		if path.Clean(x) == p {
			return true
		}
	}
	return false
}

// features returns the build's features: Options.Features or the default.
func (o *Options) features() features.Site {
	if o.Features == nil {
		return features.Default()
	}
	return *o.Features
}

// Result summarises a build.
type Result struct {
	// Pages is the number of navigation pages rendered (the index copy
	// and 404.html are not counted).
	Pages int
	// Files is the number of files written to the Output.
	Files int
	// Reused is the number of pages kept from the previous build rather
	// than rendered again (Options.CacheDir); they count in Files.
	Reused int
	// Warnings are the content problems found, in the order found.
	Warnings []diag.Warning
	// Config is the configuration used, with the navigation built.
	Config *config.Config
}

// site is the state of one build.
type site struct {
	src       fs.FS
	ignore    gitignore.Matcher // what the site leaves out (ignore.go)
	opts      Options
	cfg       *config.Config
	w         *diag.Warner
	out       output.Output
	written   int
	pages     map[string]*page.Page // navigation pages by path
	order     []*page.Page          // in navigation order
	entries   map[string]config.NavEntry
	files     map[string]bool        // every regular file of the source
	fileList  []string               // the same, in the order of fs.WalkDir
	mods      map[string]*mdx.Module // parsed files
	redirects *config.RedirectTable
	links     *links.Resolver // resolves links against pages, files and redirects (site_links.go)
	theme     *layout.Theme
	assets    []ownAsset        // Lectern's own assets of the build, named by content (own_assets.go)
	customJS  []string          // the repository's scripts pages load (custom_scripts.go)
	customCSS []string          // the repository's stylesheets pages link (custom_css.go)
	cache     *buildCache       // nil without Options.CacheDir
	srcSums   map[string]string // page path → hash of its source, with a cache
	reused    int
	base      *site // read-only snapshot for the page renderers (parallel.go)
	// manifest is the previous build's cache manifest, with a cache.
	manifest *cache.State
	stamps   map[string]cache.Stamp // source file → stamp, with a cache
	// lazy holds the pages loaded from the cache without their body
	// (parallel.go: ensureBody); read-only once the pages are loaded.
	lazy        map[*page.Page]*lazyBody
	search      []search.Doc // the pages' search documents, in navigation order, when the index is not streamed
	mds         [][]byte     // with a cache, the pages' Markdown as rendered, nil for those kept (page_markdown.go)
	llmsFullBuf bytes.Buffer // without one, llms-full.txt as the pages are written (llms.go)
	// searchIDs are the pages' ids in the search index, -1 for those not
	// in it, once assigned (searchIndexIDs).
	searchIDs []int
	stream    *searchStream // makes the index as the pages are written (search_stream.go)
	mermaid   *mermaidUse   // whether a page has a mermaid diagram (mermaid.go)
	api       *apiState     // OpenAPI documents and generated pages (openapi_page.go)
	limit     *limits.State // the first limit exceeded while rendering (render/limits)
	outBytes  int64         // bytes written, against Limits.MaxOutputBytes
}

// Build renders the docs tree src (its root holds docs.json or mint.json;
// without either, the navigation is the folder tree) to out.
//
// It returns a *lectern.Error with code lectern.EINVALID, whose message
// names the file, when the site would be unusable: neither a configuration
// nor any page, a configuration that is not valid JSON (`docs.json: invalid
// JSON at line 3: ...`), or a navigation page that does not exist
// (`docs.json: navigation page "guides/missing" not found (no
// guides/missing.mdx or .md)`). Content problems that leave a usable site
// are Warnings in the Result. Build checks ctx between pages and returns
// ctx.Err() when it is done; errors reading src or writing to out are
// returned wrapped.
func Build(ctx context.Context, src fs.FS, out output.Output, opts Options) (*Result, error) {
	if src == nil || out == nil {
		return nil, lectern.Errorf(lectern.EINVALID, "render: a source and an output are required")
	}
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &site{
		src: src, opts: opts, out: out, w: &diag.Warner{},
		files: map[string]bool{}, mods: map[string]*mdx.Module{},
		mermaid: &mermaidUse{}, limit: &limits.State{},
	}
	if err := s.loadAndOpenCache(); err != nil {
		return nil, err
	}
	if s.cache != nil && s.cache.out != nil {
		defer s.cache.out.CloseDirs()
	}
	total := len(s.order)
	progress := func(done int) {
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	progress(0)
	defer func() { s.stream.close() }() // when the build fails before the index is written
	if err := s.writePages(ctx, progress); err != nil {
		return nil, err
	}
	if err := s.finishBuild(); err != nil {
		return nil, err
	}
	return &Result{Pages: total, Files: s.written, Reused: s.reused, Warnings: s.w.Sorted(), Config: s.cfg}, nil
}

// normalize returns o with its BasePath, Features, Limits and SiteURL in
// the form the build uses, or the error of an invalid BasePath or of
// features a build cannot have.
func (o Options) normalize() (Options, error) {
	base, err := cleanBasePath(o.BasePath)
	if err != nil {
		return o, err
	}
	o.BasePath = base
	feats := o.features()
	if err := feats.ValidateBuild(); err != nil {
		return o, err
	}
	if o.Export {
		feats.EmbedHosts = nil // an export loads nothing from other hosts
	}
	o.Features = &feats
	o.Limits = o.Limits.WithDefaults()
	o.SiteURL = strings.TrimRight(strings.TrimSpace(o.SiteURL), "/")
	return o, nil
}

// loadAndOpenCache loads the source (load) and, with a cache, opens the
// build cache (openCache) over the previous build's manifest, which is
// read meanwhile.
func (s *site) loadAndOpenCache() error {
	if s.opts.CacheDir != "" {
		s.stamps = map[string]cache.Stamp{}
		s.manifest = cache.ReadState(s.opts.CacheDir, s.out) // read while the source loads
	}
	if err := cmp.Or(s.load(), s.limit.Err()); err != nil {
		if s.manifest != nil {
			s.manifest.Get()
		}
		return err
	}
	if s.opts.CacheDir != "" {
		var err error
		if s.cache, err = openCache(s, s.manifest); err != nil {
			return err
		}
	}
	return nil
}

// writePages renders the navigation pages and writes them in order,
// calling progress after each (parallel.go). It returns ctx.Err() when
// ctx is done and the error of a limit exceeded.
func (s *site) writePages(ctx context.Context, progress func(done int)) error {
	if s.theme != nil {
		// The sidebars' warnings in navigation order, and with a cache
		// the hashes of what each page's sidebar shows.
		s.theme.Prewarm(s.opts.CacheDir != "")
	}
	if s.streamSearch() {
		s.stream = newSearchStream(len(s.order)) // search_stream.go
	} else {
		s.search = make([]search.Doc, 0, len(s.order))
	}
	// Pages are rendered in parallel and written in order (parallel.go).
	render := s.renderOne
	var reuse func(i int) (pageResult, bool)
	if s.cache != nil {
		reuse, render = s.cache.reuse(s), s.cache.page(s)
	}
	err := s.renderPages(ctx, reuse, render, func(i int, r pageResult) error {
		return s.writePage(i, r, progress)
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.limit.Err()
}

// writePage writes page i of s.order, rendered (or reused) as r, records
// it in the cache and adds its warnings and search entry; then it calls
// progress.
func (s *site) writePage(i int, r pageResult, progress func(done int)) error {
	name := s.order[i].Path + ".html"
	if err := s.limit.Err(); err != nil {
		return err
	}
	if limits.Over(len(r.data), s.opts.Limits.MaxPageBytes) {
		return limits.Errorf(limits.MaxPageSize, s.order[i].File, limits.FormatSize(int64(s.opts.Limits.MaxPageBytes)),
			"the page renders to %s of HTML", limits.FormatSize(int64(len(r.data))))
	}
	if r.reused {
		s.written++
		s.reused++
	} else if err := s.write(name, r.data); err != nil {
		return err
	}
	if err := s.writePageMarkdown(i, r); err != nil {
		return err
	}
	if s.cache != nil {
		s.cache.record(s, i, r)
	}
	s.w.Merge(r.warns)
	if s.stream != nil {
		// Its index is made as it goes (search_stream.go).
		if err := s.stream.add(i, r.doc); err != nil {
			return err
		}
		if err := s.stream.writeReady(s); err != nil {
			return err
		}
	} else {
		d := r.doc
		if d.Terms != nil {
			// Encoded for the cache: not the words, which hold the page's text.
			d = search.Doc{Terms: d.Terms, Frag: d.Frag}
		}
		s.search = append(s.search, d)
	}
	progress(i + 1)
	return nil
}

// finishBuild writes the files besides the pages (writeSiteFiles) and,
// with a cache, saves the manifest for the next build.
func (s *site) finishBuild() error {
	if s.cache != nil {
		s.cache.encodeSourcesAhead()
	}
	if err := s.writeSiteFiles(); err != nil {
		return err
	}
	if err := s.limit.Err(); err != nil {
		return err
	}
	if s.cache != nil {
		s.cache.finish(s)
		if err := s.cache.save(); err != nil {
			return err
		}
	}
	return nil
}

// cleanBasePath normalises Options.BasePath to "" or "/a/b".
func cleanBasePath(b string) (string, error) {
	b = strings.Trim(strings.TrimSpace(b), "/")
	if b == "" {
		return "", nil
	}
	if strings.ContainsAny(b, "?#\\\"'<> ") || !fs.ValidPath(b) {
		return "", lectern.Errorf(lectern.EINVALID, "render: invalid base path %q: use a path like /docs", b)
	}
	return "/" + b, nil
}

// load scans the source, reads the configuration and the navigation pages.
func (s *site) load() error {
	pageFiles, err := s.scan()
	if err != nil {
		if limits.AsError(err) != nil {
			return err
		}
		return fmt.Errorf("render: read source: %w", err)
	}
	cfg, err := config.Load(s.src, s.w, s.opts.Limits.MaxFileBytes)
	if err != nil {
		return err
	}
	s.openAPINav(cfg)
	var navPages []config.NavEntry
	if cfg != nil {
		navPages = cfg.Nav.Pages()
	}
	switch {
	case cfg == nil && len(pageFiles) == 0:
		return lectern.Errorf(lectern.EINVALID, "no docs.json, mint.json or .mdx/.md page found")
	case cfg == nil:
		cfg = &config.Config{Nav: config.FolderNav(pageFiles)}
		navPages = cfg.Nav.Pages()
	case len(navPages) == 0 && len(pageFiles) == 0:
		return lectern.Errorf(lectern.EINVALID, "%s: the navigation lists no pages and there are no .mdx/.md files", cfg.Source)
	case len(navPages) == 0:
		s.w.Add(cfg.Source, 0, "the navigation lists no pages; using the folder tree")
		cfg.Nav = config.FolderNav(pageFiles)
		navPages = cfg.Nav.Pages()
	}
	if cfg.Name == "" {
		cfg.Name = "Documentation"
	}
	s.cfg = cfg
	s.redirects = config.NewRedirectTable(cfg.Redirects)
	s.links = s.newLinks()
	// The pages of the navigation, in its order (the OpenAPI pages it
	// generates among them), then the other pages of the repository,
	// which are built but not listed (unlisted.go).
	s.pages, s.entries = make(map[string]*page.Page, len(navPages)), make(map[string]config.NavEntry, len(navPages))
	jobs, err := s.navJobs(navPages)
	if err != nil {
		return err
	}
	jobs = append(jobs, s.unlistedJobs(pageFiles, navPages)...)
	if err := s.checkPages(cmp.Or(cfg.Source, "the folder tree"), len(jobs)); err != nil {
		return err
	}
	// Read and parse the pages in parallel, in navigation order (parallel.go).
	if err := s.loadPages(jobs); err != nil {
		return err
	}
	s.links.Unpublished = s.unpublishedFiles() // publish.go
	s.checkPageURLs()                          // site_links.go
	s.checkIcons()
	s.customJS = s.customScriptFiles()
	s.customCSS = s.customStyleFiles()
	s.checkCustomCSS()
	s.theme = layout.New(&layout.Site{
		Config: s.cfg, Warner: s.w, Links: s.links, Pages: s.pages, Order: s.order, Entries: s.entries,
		Features: s.opts.features(), CustomJS: s.customJS, CustomCSS: s.customCSS, Split: buildSplit, Banner: s.bannerFunc(),
	})
	s.prepareAssets() // own_assets.go: their names, before any page links to them
	return nil
}

// navJobs returns the load jobs of the navigation's pages, in its order:
// a page the OpenAPI navigation generated, or the page's file. A page
// that is not a valid path or has no file fails the build.
func (s *site) navJobs(navPages []config.NavEntry) ([]loadJob, error) {
	source := cmp.Or(s.cfg.Source, "navigation")
	var missing []string
	jobs := make([]loadJob, 0, len(navPages))
	for _, e := range navPages {
		if g := s.openAPIGenerated(e); g != nil {
			jobs = append(jobs, loadJob{entry: e, gen: g})
			continue
		}
		if !fs.ValidPath(e.Page) || strings.Contains(e.Page, "..") {
			return nil, lectern.Errorf(lectern.EINVALID, "%s: navigation page %q is not a valid path", source, e.Page)
		}
		file := e.Page + ".mdx"
		if !s.files[file] {
			file = e.Page + ".md"
		}
		if !s.files[file] {
			missing = append(missing, e.Page)
			continue
		}
		jobs = append(jobs, loadJob{entry: e, file: file})
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 1 {
			more = fmt.Sprintf("; %d more navigation pages are missing", len(missing)-1)
		}
		return nil, lectern.Errorf(lectern.EINVALID, "%s: navigation page %q not found (no %s.mdx or .md)%s",
			source, missing[0], missing[0], more)
	}
	return jobs, nil
}

// renderPage renders page p as the output file outName, and its document
// for the search index.
func (s *site) renderPage(p *page.Page, outName string) ([]byte, search.Doc) {
	data, body, headings := s.renderHTML(p, outName)
	return data, s.searchDoc(p, body, headings)
}

// renderHTML renders page p as the output file outName, and returns its
// body and the body's headings (its table of contents') as well.
func (s *site) renderHTML(p *page.Page, outName string) (data []byte, body string, headings *search.Headings) {
	body = s.renderBody(p, outName)
	headings = search.FindHeadings(body)
	return s.theme.Page(p, outName, s.withMermaid(body, outName), headings.TOC()), body, headings
}

// renderBody renders the content of page p. A failure of the components.Renderer
// itself (a bug: content must never cause one) costs the page its content,
// with a warning, rather than the whole build.
func (s *site) renderBody(p *page.Page, outName string) (body string) {
	defer func() {
		if v := recover(); v != nil {
			s.w.Add(p.File, 0, "internal error while rendering this page (please report it): %v", v)
			body = `<p class="lc-render-error">This page could not be rendered.</p>`
		}
	}()
	mod := s.mods[p.File]
	if mod == nil {
		mod = s.parseModule(p.File, p.Body, p.BodyLine)
	}
	r := components.New(s.renderEnv(), p.File, p.Path, outName)
	// Marker-like comments of the content are made inert (render/features);
	// API pages and pages with examples get two columns (openapi_examples.go).
	return s.pageBody(r, p, mod)
}

// Output receives the built site, one file at a time (output.Output).
type Output = output.Output

// Warning is a problem of the source that left a usable site (diag.Warning).
type Warning = diag.Warning

// buildSplit says when the sidebar of a section is split between its
// pages and a navigation file: zero, for layout's default; tests lower it
// (sidebar_split_test.go).
var buildSplit layout.Split
