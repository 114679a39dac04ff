package render

import (
	"cmp"
	"fmt"
	"strings"

	"lectern.dev/lectern/render/openapi"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/pagemd"
)

// Every page written as PAGE.html has its Markdown beside it, PAGE.md
// ("guides/x.html" → "guides/x.md", the index copy's index.html →
// index.md), made by render/pagemd from the same parsed source, with its
// links written as the HTML's. The repository cannot publish a file of
// that name: its .md files are pages (links.IsPageFile), never copied.
// llms.txt and llms-full.txt (llms.go) are made of them.

// markdownName returns the name of the Markdown file beside the page
// written as outName.
func markdownName(outName string) string {
	return strings.TrimSuffix(outName, ".html") + ".md"
}

// pageMarkdown returns page p, rendered as outName, as Markdown. It runs
// on the page's worker after its HTML (renderOne), whose warnings are
// the page's: this one gives none. A failure of the converter (a bug)
// leaves the page its title and a note, with a warning, rather than
// failing the build.
func (s *site) pageMarkdown(p *page.Page, outName string) (md []byte) {
	s.w.Mute++
	defer func() {
		s.w.Mute--
		if v := recover(); v != nil {
			s.w.Add(p.File, 0, "internal error while writing this page as Markdown (please report it): %v", v)
			md = []byte("# " + p.Title + "\n\nThis page could not be written as Markdown.\n")
		}
	}()
	mod := s.mods[p.File]
	if mod == nil && p.Body != "" {
		mod = s.parseModule(p.File, p.Body, p.BodyLine)
	}
	pg := pagemd.Page{Title: p.Title, Description: p.Front.Description, File: p.File, Path: p.Path, Out: outName,
		Module: mod, URL: p.Front.URL}
	if op := s.pageOperation(p); op != nil {
		pg.Operation = op
	} else if ref := cmp.Or(p.Front.OpenAPI, p.Front.API); ref != "" {
		pg.API = apiLine(ref)
	}
	env := &pagemd.Env{Links: s.links, LoadModule: s.loadModule, MaxExpansions: s.opts.Limits.MaxExpansions}
	if s.api != nil {
		env.Examples = s.api.examples
	}
	return []byte(pagemd.Render(env, pg))
}

// apiLine is the method and path of an operation reference such as
// "POST /plants" or "spec.json GET /plants", or "" when it names none.
func apiLine(ref string) string {
	fields := strings.Fields(ref)
	for i, f := range fields {
		if openapi.IsMethod(f) && i+1 < len(fields) {
			return strings.ToUpper(f) + " " + fields[i+1]
		}
	}
	return ""
}

// writePageMarkdown writes page i's Markdown, rendered as r (a reused
// page's was kept with it: buildCache.reuse), and keeps it for
// llms-full.txt (llms.go): without a cache, as the page's entry of it.
func (s *site) writePageMarkdown(i int, r pageResult) error {
	if r.reused {
		s.written++
		return nil
	}
	if s.cache == nil {
		// Every page is rendered, in order: its entry of llms-full.txt
		// now, rather than its Markdown kept until the end.
		if s.inSitemap(s.order[i]) {
			b := &s.llmsFullBuf
			if need := len(r.md) + 1024; b.Cap()-b.Len() < need {
				// Grow to what the pages so far project for the whole
				// file: a few large allocations instead of doubling from
				// small (tens of MB at 10,000 pages).
				b.Grow(max(need, b.Len()*(len(s.order)-i)/(i+1)+b.Len()/8))
			}
			if b.Len() > 0 {
				b.WriteByte('\n') // a blank line between entries
			}
			s.writeLLMsEntry(b, i, r.md)
		}
	} else {
		if s.mds == nil {
			s.mds = make([][]byte, len(s.order))
		}
		s.mds[i] = r.md
	}
	return s.write(markdownName(s.order[i].Path+".html"), r.md)
}

// markdownOf returns the Markdown of page i: as rendered by this build,
// or as the previous one wrote it for a page kept from it.
func (s *site) markdownOf(i int) ([]byte, error) {
	if s.mds != nil && s.mds[i] != nil {
		return s.mds[i], nil
	}
	name := markdownName(s.order[i].Path + ".html")
	var rec output.FileInfo
	if s.cache != nil && s.cache.prev != nil {
		if old := s.cache.prev.Pages[s.order[i].Path]; old != nil {
			rec = old.MD
		}
	}
	keeper, ok := s.out.(output.Keeper)
	if ok && rec.Size > 0 {
		if data, ok := keeper.ReadKept(name, rec); ok {
			return data, nil
		}
	}
	return nil, fmt.Errorf("render: the previous build's output changed during this one (build again without the cache's folder): %s, kept, is not as the previous build wrote it", name)
}
