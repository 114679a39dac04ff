package layout

import (
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
)

// Site is what the layout reads of a build. The build fills it once its
// pages are loaded; nothing changes it after New.
type Site struct {
	Config *config.Config
	// Warner receives the layout's warnings (missing logo, broken links
	// of the configuration); Theme.ForWarner gives a copy reporting elsewhere.
	Warner *diag.Warner
	// Links resolves links, and says the form (Export), the base path
	// and the site's URL.
	Links    *links.Resolver
	Pages    map[string]*page.Page // navigation pages by path
	Order    []*page.Page          // in navigation order
	Entries  map[string]config.NavEntry
	Features features.Site
	// CustomJS are the repository's scripts every page loads, relative
	// to features.CustomScriptDir.
	CustomJS []string
	// CustomCSS are the repository's stylesheets every page links after
	// the theme's, as paths of the source (and of the site).
	CustomCSS []string
	// Split sets when a section's sidebar is split between its pages and
	// a navigation file (sidebar_split.go); zero for defaultSplit.
	Split Split
	// Banner, when set, returns the HTML of the bar shown at the top of
	// the page written as outName (docs.json banner), or "".
	Banner func(outName string) string
}
