package render

import (
	"path"
	"sort"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/page"
)

// Pages outside the navigation. As on Mintlify, every page file of the
// repository is built and served at its path; the navigation decides only
// what the sidebar lists. A page it does not list is "unlisted": in no
// sidebar, previous/next link, search index or sitemap
// (page.Page.Unlisted). Snippets (files under snippets/) are not pages,
// and files the repository's ignore rules leave out (ignore.go) are not
// read at all.

// maxNameBytes is the longest file name most file systems take.
const maxNameBytes = 255

// unlistedJobs returns a load job for each page file of pageFiles whose
// page the navigation (navPages) does not list, in name order. Without a
// configuration the navigation is the folder tree, which lists every
// page. An x.md beside an x.mdx is the same page and left out, as is
// "index", with a warning: the site's root is the navigation's first
// page.
func (s *site) unlistedJobs(pageFiles []string, navPages []config.NavEntry) []loadJob {
	if s.cfg.Source == "" {
		return nil
	}
	inNav := make(map[string]bool, len(navPages))
	for _, e := range navPages {
		inNav[e.Page] = true
	}
	mdx := map[string]bool{}
	for _, f := range pageFiles {
		if strings.HasSuffix(f, ".mdx") {
			mdx[strings.TrimSuffix(f, ".mdx")] = true
		}
	}
	var jobs []loadJob
	for _, f := range pageFiles {
		if strings.HasPrefix(f, "snippets/") || metaPage(f) {
			continue
		}
		p, isMD := strings.CutSuffix(f, ".md")
		if !isMD {
			p = strings.TrimSuffix(f, ".mdx")
		} else if mdx[p] {
			continue // x.mdx is the page
		}
		switch {
		case inNav[p]:
		case len(path.Base(p))+len(".html") > maxNameBytes:
			s.w.Add(f, 0, "not built: its page's file name would be over %d bytes; give it a shorter name", maxNameBytes)
		case p == "index":
			s.w.Add(f, 0, "not built: the navigation does not list it, and the site's root is the navigation's first page (%s); list \"index\" first to make it the root", navPages[0].Page)
		default:
			jobs = append(jobs, loadJob{entry: config.NavEntry{Page: p}, file: f, unlisted: true})
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].file < jobs[j].file })
	return jobs
}

// Which pages search and the sitemap have follows Mintlify's table: a
// page that is unlisted, hidden by its front matter or under a hidden
// group or division (that is not "searchable") is in neither, unless
// docs.json sets "seo": {"indexing": "all"}; "noindex: true" leaves a page
// out of both, and "searchable: false" out of search only.

// discoverable reports whether page p is in search and the sitemap as far
// as its place in the navigation goes.
func (s *site) discoverable(p *page.Page) bool {
	if s.cfg != nil && s.cfg.IndexAll {
		return true
	}
	return !p.Unlisted && !p.Front.Hidden && !s.entries[p.Path].Hidden
}

// inSitemap reports whether page p is listed in sitemap.xml: not a link
// elsewhere (front matter "url"), not noindex, and discoverable.
func (s *site) inSitemap(p *page.Page) bool {
	return p.Front.URL == "" && !p.Front.NoIndex && s.discoverable(p)
}

// inSearch reports whether page p is in the site's search index.
func (s *site) inSearch(p *page.Page) bool { return s.inSitemap(p) && !p.Front.NotSearchable }
