package render

import (
	"sort"
	"sync"

	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/openapi"
)

// Lectern's own assets: the files the build writes directly under
// _lectern/ (style.css, site.js, theme-init.js, contextual.js, the
// features' scripts, playground.js, the mermaid library and its start-up
// script, redirects.js) are written under a name that carries a hash of
// their content (features.AssetName: _lectern/style.0123456789.css), so
// that servers let browsers keep them for a year, and every page links
// to that name.
//
// Their content is known before any page is rendered: prepareAssets makes
// them once the pages are loaded, and the link resolver maps their names
// (links.Resolver.Assets). It depends on the renderer, the options and
// the configuration (colours, fonts, features), which the rebuild cache's
// key covers, never on a page's content: a page changed rewrites that
// page alone. The one exception, redirects.js, which lists the site's
// pages, is loaded by 404.html only, written by every build.
//
// The renderer's own files (site.js, the features' scripts, the mermaid
// library) are named once per process, when first needed (assetFile).

// ownAsset is one of Lectern's own assets of a build.
type ownAsset struct {
	name string // as the build knows it: "_lectern/style.css"
	out  string // as written: "_lectern/style.0123456789.css"
	data []byte
}

// assetFile is a file of the renderer itself, the same in every build:
// its name is worked out once.
type assetFile struct {
	name string
	data []byte
	out  func() string // features.AssetName of name and data
}

func newAssetFile(name string, data []byte) *assetFile {
	return &assetFile{name: name, data: data, out: sync.OnceValue(func() string { return features.AssetName(name, data) })}
}

// asset returns f as an asset of a build.
func (f *assetFile) asset() ownAsset {
	return ownAsset{name: f.name, out: f.out(), data: f.data}
}

// The renderer's own files.
var (
	siteJSFile     = newAssetFile("_lectern/site.js", layout.SiteJS)
	themeInitFile  = newAssetFile("_lectern/theme-init.js", layout.ThemeInit)
	contextualFile = newAssetFile(layout.ContextualJSFile, layout.ContextualJS)
	searchJSFile   = newAssetFile(features.SearchJSFile, searchJS)
	assistantFile  = newAssetFile(features.AssistantJSFile, assistantJS)
	analyticsFile  = newAssetFile(features.AnalyticsJSFile, analyticsJS)
	playgroundFile = newAssetFile(features.PlaygroundJSFile, openapi.PlaygroundJS)
	mermaidFile    = newAssetFile(mermaidLibFile, mermaidJS)
	mermaidInit    = newAssetFile(mermaidInitFile, mermaidInitJS)
)

// styleFile is the site's stylesheet (layout.Theme.CSS).
const styleFile = "_lectern/style.css"

// prepareAssets makes the own assets that every build, or its
// configuration, writes (the stylesheet, the theme's and the features'
// scripts, redirects.js) and links the pages to their names. Those that a
// page's content calls for (playground.js, the mermaid library) are
// written only when one does (writeOpenAPIFiles, writeMermaidAssets), and
// the pages that need them link to them by name (withMermaid,
// openAPIPage's playground script).
func (s *site) prepareAssets() {
	s.assets = append(s.assets[:0],
		ownAsset{name: styleFile, data: s.featureCSS(s.theme.CSS())},
		siteJSFile.asset(), themeInitFile.asset())
	s.assets[0].out = features.AssetName(styleFile, s.assets[0].data)
	if s.theme.HasContextualMenu() {
		s.assets = append(s.assets, contextualFile.asset()) // the page actions
	}
	f := s.opts.features()
	for _, a := range []struct {
		on   bool
		file *assetFile
	}{{f.Search, searchJSFile}, {f.Assistant, assistantFile}, {f.Analytics, analyticsFile}} {
		if a.on {
			s.assets = append(s.assets, a.file.asset())
		}
	}
	if c := s.redirectConfig(nil); c != nil {
		data := redirectsScript(c)
		s.assets = append(s.assets, ownAsset{name: redirectsScriptFile, out: features.AssetName(redirectsScriptFile, data), data: data})
	}
	s.links.Assets = make(map[string]string, len(s.assets))
	for _, a := range s.assets {
		s.links.Assets[a.name] = a.out
	}
}

// pageAssetNames are the names written of the own assets that pages link
// to, sorted, for the rebuild cache's key: redirects.js, which 404.html
// alone loads, is not among them.
func (s *site) pageAssetNames() []string {
	var names []string
	for _, a := range s.assets {
		if a.name != redirectsScriptFile {
			names = append(names, a.out)
		}
	}
	sort.Strings(names)
	return names
}

// writeOwnAssets writes the assets of prepareAssets and marks them in
// generated.
func (s *site) writeOwnAssets(generated map[string]bool) error {
	for _, a := range s.assets {
		if err := s.write(a.out, a.data); err != nil {
			return err
		}
		generated[a.out] = true
	}
	return nil
}
