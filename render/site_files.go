package render

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

// write sends one file to the output.
func (s *site) write(name string, data []byte) error {
	if err := s.countOutput(name, int64(len(data))); err != nil {
		return err
	}
	if err := s.out.WriteFile(name, data); err != nil {
		return fmt.Errorf("render: write %s: %w", name, err)
	}
	s.written++
	return nil
}

// writeParts sends one file, as parts of the previous search index and
// new bytes, to the output (buildCache.searchParts).
func (s *site) writeParts(name string, parts []output.Part) error {
	var n int64
	for _, p := range parts {
		n += int64(len(p.Data)) + p.N
	}
	if err := s.countOutput(name, n); err != nil {
		return err
	}
	if err := s.cache.out.WriteParts(name, parts, s.cache.prevIndexFile); err != nil {
		return fmt.Errorf("render: write %s: %w", name, err)
	}
	s.written++
	return nil
}

// writeSiteFiles writes everything but the pages: the index copy, 404,
// sitemap, robots, theme assets, search index and the source's files.
func (s *site) writeSiteFiles() error {
	generated := map[string]bool{}
	for _, p := range s.order {
		generated[p.Path+".html"] = true
	}
	if s.pages["index"] == nil && len(s.order) > 0 {
		// A copy of the first page, kept when that page is (rebuild.go).
		if s.cache != nil && s.cache.keepHome(s) {
			s.written++
		} else {
			first := s.order[0]
			if err := s.ensureBody(first); err != nil {
				return err
			}
			s.w.Mute++
			data, _ := s.renderPage(first, "index.html")
			s.w.Mute--
			if err := s.write("index.html", data); err != nil {
				return err
			}
			if s.cache != nil {
				s.cache.recordHome(s)
			}
		}
	}
	// With a cache, the search index is spliced from the previous one
	// when it can be, rather than assembled (render/search).
	var searchParts []output.Part
	if s.cache != nil {
		searchParts = s.cache.searchParts(s)
		s.searchSpliced = searchParts != nil
	}
	files := map[string][]byte{
		"404.html":           s.theme.NotFound(s.redirectScriptTag()),
		"sitemap.xml":        s.sitemap(),
		"robots.txt":         s.robots(),
		"_lectern/style.css": s.featureCSS(s.theme.CSS()),
		"_lectern/site.js":   layout.SiteJS,
	}
	for _, name := range []string{"404.html", "sitemap.xml", "robots.txt", "_lectern/style.css", "_lectern/site.js", features.SearchIndexFile} {
		if feat, ok := features.Files[name]; ok && !s.opts.features().Enabled(feat) {
			continue // render/features
		}
		var err error
		switch {
		case name != features.SearchIndexFile:
			err = s.write(name, files[name])
		case searchParts != nil:
			err = s.writeParts(name, searchParts)
		default:
			err = s.write(name, s.searchIndex())
		}
		if err != nil {
			return err
		}
		generated[name] = true
	}
	for _, f := range s.themeFiles() { // theme-init.js, search-index.js, redirect pages
		var err error
		if f.name == features.SearchIndexJSFile && searchParts != nil {
			err = s.writeParts(f.name, search.ScriptParts(searchParts))
		} else {
			err = s.write(f.name, f.data)
		}
		if err != nil {
			return err
		}
		generated[f.name] = true
	}
	if err := s.writeMermaidAssets(); err != nil { // mermaid.go
		return err
	}
	generated["index.html"] = true
	if err := s.writeOpenAPIFiles(generated); err != nil {
		return err
	}
	if err := s.writeCustomScripts(); err != nil { // custom_scripts.go
		return err
	}
	var others []string
	for f := range s.files {
		if !links.IsPageFile(f) {
			others = append(others, f)
		}
	}
	sort.Strings(others)
	for _, f := range others {
		base := path.Base(f)
		if base == "docs.json" || base == "mint.json" {
			continue
		}
		if generated[f] || reserved(f) {
			s.w.Add(f, 0, "not copied: the build writes a file of the same name")
			continue
		}
		var st cache.Stamp
		if s.cache != nil {
			// An unchanged source: the output file of the previous build
			// is kept rather than written again.
			if st = s.statFile(f); s.cache.keepAsset(s, f, st) {
				s.written++
				continue
			}
		}
		data, err := s.readFile(f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return limits.ReadError(f, err)
		}
		data, keep := s.exportCopy(f, data) // activefile.go
		if !keep {
			continue
		}
		if err := s.write(f, data); err != nil {
			return err
		}
		if s.cache != nil {
			s.cache.recordAsset(s, f, st)
		}
	}
	return nil
}

// siteFile is a file the theme adds to the output.
type siteFile struct {
	name string
	data []byte
}

// assets returns the theme's files besides style.css, site.js and
// search-index.json (written by build.go): the blocking theme script, the
// search index as a script (fetch() of a JSON file fails on file://) and
// the redirect pages.
func (s *site) themeFiles() []siteFile {
	files := []siteFile{
		{"_lectern/theme-init.js", layout.ThemeInit},
	}
	files = append(files, s.featureAssets()...) // render/features
	return append(files, s.redirectPages()...)
}
