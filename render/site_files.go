package render

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/search"
)

// write sends one file to the output.
func (s *site) write(name string, data []byte) error {
	if err := s.claim(name, data); err != nil {
		return err
	}
	return s.writeOut(name, data)
}

// claim counts file name of data against the output's budget, as
// written.
func (s *site) claim(name string, data []byte) error {
	if err := s.countOutput(name, int64(len(data))); err != nil {
		return err
	}
	s.written++
	return nil
}

// writeOut writes a file claimed.
func (s *site) writeOut(name string, data []byte) error {
	if err := s.out.WriteFile(name, data); err != nil {
		return fmt.Errorf("render: write %s: %w", name, err)
	}
	return nil
}

// writeParallel writes files to the output from a few goroutines, for
// many small files (the search index's files) whose writes cost more in
// system calls than in bytes. They count against the output's budget
// before any is written.
func (s *site) writeParallel(files []search.File) error {
	for _, f := range files {
		if err := s.claim(f.Name, f.Data); err != nil {
			return err
		}
	}
	return forEach(len(files), parallelWriters, func(i int) error { return s.writeOut(files[i].Name, files[i].Data) })
}

// parallelWriters is how many goroutines writeParallel writes from:
// writes wait on the file system more than on the CPU.
const parallelWriters = 4

// writeSiteFiles writes everything but the pages: the index copy, 404,
// sitemap, robots, Lectern's own assets, redirect pages, search index,
// llms.txt and llms-full.txt and the source's files.
func (s *site) writeSiteFiles() error {
	generated := map[string]bool{}
	for _, p := range s.order {
		generated[p.Path+".html"] = true
		generated[markdownName(p.Path+".html")] = true
	}
	if err := s.writeIndexCopy(); err != nil {
		return err
	}
	if err := s.writeBuildFiles(generated); err != nil {
		return err
	}
	if err := s.writeRedirectPages(generated); err != nil {
		return err
	}
	if s.opts.features().Search {
		if err := s.writeSearchIndex(generated); err != nil { // search.go
			return err
		}
	}
	if err := s.writeMermaidAssets(); err != nil { // mermaid.go
		return err
	}
	if err := s.writeNavFiles(generated); err != nil { // navfiles.go
		return err
	}
	generated["index.html"], generated["index.md"] = true, true
	if err := s.writeLLMFiles(generated); err != nil { // llms.go
		return err
	}
	if err := s.writeOpenAPIFiles(generated); err != nil {
		return err
	}
	if err := s.writeCustomScripts(); err != nil { // custom_scripts.go
		return err
	}
	return s.copySourceFiles(generated)
}

// writeIndexCopy writes index.html and index.md, a copy of the first page,
// when the navigation has no index page of its own.
func (s *site) writeIndexCopy() error {
	if s.pages["index"] != nil || len(s.order) == 0 {
		return nil
	}
	// A copy of the first page, kept when that page is (rebuild_pages.go: keepHome).
	if s.cache != nil && s.cache.keepHome(s) {
		s.written += 2
		return nil
	}
	first := s.order[0]
	if err := s.ensureBody(first); err != nil {
		return err
	}
	s.w.Mute++
	data, _, _ := s.renderHTML(first, "index.html") // the page itself is in the search index
	md := s.pageMarkdown(first, "index.html")       // its links written from the root
	s.w.Mute--
	if err := s.write("index.html", data); err != nil {
		return err
	}
	if err := s.write("index.md", md); err != nil {
		return err
	}
	if s.cache != nil {
		s.cache.recordHome(s)
	}
	return nil
}

// writeBuildFiles writes the files the build makes of the whole site,
// those of its features that are on: 404.html, sitemap.xml, robots.txt
// and Lectern's own assets (own_assets.go: style.css, site.js,
// theme-init.js, the page actions' and the features' scripts,
// redirects.js). It marks them in generated.
func (s *site) writeBuildFiles(generated map[string]bool) error {
	files := map[string][]byte{
		"404.html":    s.theme.NotFound(s.redirectScriptTag()),
		"sitemap.xml": s.sitemap(),
		"robots.txt":  s.robots(),
	}
	for _, name := range []string{"404.html", "sitemap.xml", "robots.txt"} {
		if err := s.write(name, files[name]); err != nil {
			return err
		}
		generated[name] = true
	}
	return s.writeOwnAssets(generated)
}

// writeRedirectPages writes the redirect pages (redirects.go) and marks
// them in generated.
func (s *site) writeRedirectPages(generated map[string]bool) error {
	for _, f := range s.redirectPages() {
		if err := s.write(f.name, f.data); err != nil {
			return err
		}
		generated[f.name] = true
	}
	return nil
}

// copySourceFiles copies the source's files that are not pages to the
// output, in name order, but for the configuration and those of a name
// in generated or in the build's own folder (with a warning). With a
// cache, an unchanged file's previous output is kept.
func (s *site) copySourceFiles(generated map[string]bool) error {
	var others []string
	for f := range s.files {
		if !links.IsPageFile(f) && !s.links.Unpublished[f] {
			others = append(others, f)
		}
	}
	sort.Strings(others)
	for _, f := range others {
		if err := s.copySourceFile(f, generated); err != nil {
			return err
		}
	}
	return nil
}

// copySourceFile copies the source's file f to the output, or keeps its
// previous output, or leaves it out (see copySourceFiles).
func (s *site) copySourceFile(f string, generated map[string]bool) error {
	base := path.Base(f)
	if base == "docs.json" || base == "mint.json" {
		return nil
	}
	if generated[f] || reserved(f) {
		s.w.Add(f, 0, "not copied: the build writes a file of the same name")
		return nil
	}
	var st cache.Stamp
	if s.cache != nil {
		// An unchanged source: the output file of the previous build
		// is kept rather than written again.
		if st = s.statFile(f); s.cache.keepAsset(s, f, st) {
			s.written++
			return nil
		}
	}
	data, err := s.readFile(f)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return limits.ReadError(f, err)
	}
	data, keep := s.exportCopy(f, data) // activefile.go
	if !keep {
		return nil
	}
	if err := s.write(f, data); err != nil {
		return err
	}
	if s.cache != nil {
		s.cache.recordAsset(s, f, st)
	}
	return nil
}

// siteFile is a file the build adds to the output.
type siteFile struct {
	name string
	data []byte
}
