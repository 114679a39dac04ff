package render

import (
	_ "embed"
	"html"
	"strings"
	"sync/atomic"

	"lectern.dev/lectern/render/markdown"
)

// Mermaid diagrams (```mermaid fences and <Mermaid chart="..." />) are
// written as <pre class="mermaid">source</pre> and drawn in the browser by
// the mermaid library, which the site ships itself: _lectern/mermaid.min.js
// (assets/mermaid, from the npm package) and _lectern/mermaid-init.js are
// written, under names with their content's hash (own_assets.go), only
// when at least one page has a diagram, and only pages with one load them.

//go:embed assets/mermaid/mermaid.min.js
var mermaidJS []byte

// mermaidInitJS starts mermaid with the theme in use: dark when the page
// is dark (data-theme="dark", or the system preference without a
// data-theme="light").
var mermaidInitJS = []byte(`(function () {
  if (!window.mermaid) return;
  var t = document.documentElement.getAttribute("data-theme");
  var dark = t === "dark" || (t !== "light" && window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  window.mermaid.initialize({ startOnLoad: true, theme: dark ? "dark" : "default" });
})();
`)

const (
	mermaidLibFile  = "_lectern/mermaid.min.js"
	mermaidInitFile = "_lectern/mermaid-init.js"
)

// withMermaid returns a page body with the mermaid scripts appended when it
// has a diagram, and records that the site needs the library.
func (s *site) withMermaid(body, outName string) string {
	if !strings.Contains(body, markdown.MermaidMarker) {
		return body
	}
	if s.mermaid != nil {
		s.mermaid.used.Store(true)
	}
	return body + `<script src="` + html.EscapeString(s.links.AssetURL(outName, mermaidFile.out())) + `" defer></script>` +
		`<script src="` + html.EscapeString(s.links.AssetURL(outName, mermaidInit.out())) + `" defer></script>` + "\n"
}

// mermaidUse records whether a page of the build has a diagram; the page
// renderers (parallel.go) share it through their copies of the site.
type mermaidUse struct{ used atomic.Bool }

// writeMermaidAssets writes the mermaid library and its start-up script
// when a page uses them.
func (s *site) writeMermaidAssets() error {
	if s.mermaid == nil || !s.mermaid.used.Load() {
		return nil
	}
	for _, f := range []*assetFile{mermaidFile, mermaidInit} {
		if err := s.write(f.out(), f.data); err != nil {
			return err
		}
	}
	return nil
}
