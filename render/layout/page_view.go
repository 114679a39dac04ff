package layout

import (
	"html"
	"html/template"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
	"lectern.dev/lectern/render/safe"
	"lectern.dev/lectern/render/search"
)

// pageView is what theme/layout.html renders. Every URL in it is already
// in the form of the build (absolute or relative to the output file).
type pageView struct {
	SiteName    string
	Title       string
	Description string
	Keywords    string
	Canonical   string
	Mode        string
	Eyebrow     string // the page's group (styling.eyebrows "section")
	// HTMLTheme is the <html> element's data-theme: the colour mode the
	// site opens in when it is not the reader's (appearance.default).
	HTMLTheme string
	// ThemeStrict hides the light/dark toggle (appearance.strict).
	ThemeStrict bool
	// CurrentPath is the page's path from the site's root ("/",
	// "/guides/x"), the <html> element's data-current-path as on
	// Mintlify, for the repository's stylesheets.
	CurrentPath string
	NoIndex     bool
	NotFound    bool

	Favicon     string
	LogoLight   string
	LogoDark    string
	LogoHref    string
	StyleURL    string // this, ScriptURL, InitURL and the features' scripts: named by content (links.Resolver.Assets)
	ScriptURL   string
	InitURL     string // _lectern/theme-init.js, loaded blocking in <head>
	SearchURL   string // _lectern/search/meta.js, loaded when search opens
	RootURL     string // the site root, to which the search index's URLs are relative
	HomeURL     string
	PrimaryHex  string
	CSP         string        // the policy of an export page's <meta http-equiv> (render/features)
	ExtraHead   template.HTML // more <head> content (page-type specific assets)
	ExtraScript template.HTML // more scripts at the end of <body>
	// CustomScripts are the URLs of the repository's scripts (Site.CustomJS).
	CustomScripts []string
	// CustomStyles are the URLs of the repository's stylesheets
	// (Site.CustomCSS).
	CustomStyles []string

	// Features are the optional features of the build (Options.Features),
	// whose markup the layout writes between markers (render/features).
	Features       features.Site
	SearchJSURL    string        // _lectern/search.js
	AssistantJSURL string        // _lectern/assistant.js
	AnalyticsJSURL string        // _lectern/analytics.js
	AssistantMeta  template.HTML // <meta> holding Features.AssistantURL
	AnalyticsMeta  template.HTML // <meta> holding Features.AnalyticsURL
	// The features' markup, written from the above (feature_blocks.go).
	FeatureHead, SearchButton, AssistantButton, AnalyticsFeedback, FeatureDialogs template.HTML

	NavbarLinks   []linkView
	NavbarPrimary *linkView
	Tabs          []linkView
	Selectors     []selectorView
	Anchors       []linkView
	Footer        []linkView
	Sidebar       template.HTML
	Breadcrumbs   []linkView
	// NavURL is the navigation file of a split sidebar's section
	// (_lectern/nav/<id>.js, sidebar_split.go), "" for a full sidebar.
	NavURL string

	// Contextual is the page's "Copy page" button and menu
	// (contextual.go), nil for none.
	Contextual *contextualView

	// Banner is the bar at the top of every page (Site.Banner).
	Banner template.HTML
	Body   template.HTML
	TOC    []search.TOCItem
	Prev   *linkView
	Next   *linkView
}

// Begin and End are the markers around the markup of feature name
// (render/features); html/template drops comments written in the layout.
func (v *pageView) Begin(name string) template.HTML {
	return template.HTML(features.BeginMarker(lectern.Feature(name)))
}

// End: see Begin.
func (v *pageView) End(name string) template.HTML {
	return template.HTML(features.EndMarker(lectern.Feature(name)))
}

// linkView is a link of the header, tabs, anchors, footer, breadcrumbs or
// pager. URL is empty for breadcrumbs that are not links.
type linkView struct {
	Label, URL, Icon string
	Active, External bool
	// IconHTML is the icon as inline SVG, for the footer's social links.
	IconHTML template.HTML
}

// selectorView is a choice between divisions shown as a menu (versions,
// languages, products, dropdowns).
type selectorView struct {
	Kind    string // "version", "language", ...
	Current string
	Options []linkView
}

// view builds the site chrome for the output file outName, showing page p
// as current (p is nil for 404.html).
func (t *Theme) view(outName string, p *page.Page) *pageView {
	s := t.s
	v := &pageView{
		SiteName:    s.Config.Name,
		StyleURL:    s.Links.AssetURL(outName, "_lectern/style.css"),
		ScriptURL:   s.Links.AssetURL(outName, "_lectern/site.js"),
		InitURL:     s.Links.AssetURL(outName, "_lectern/theme-init.js"),
		SearchURL:   s.Links.AssetURL(outName, search.MetaFile),
		HomeURL:     s.Links.URL(outName, links.Target{Kind: links.Page}),
		PrimaryHex:  t.primary,
		HTMLTheme:   t.look.htmlTheme(),
		ThemeStrict: t.look.appearance.Strict,
	}
	for _, f := range t.s.CustomCSS {
		v.CustomStyles = append(v.CustomStyles, s.Links.AssetURL(outName, f))
	}
	for _, f := range t.s.CustomJS {
		v.CustomScripts = append(v.CustomScripts, s.Links.AssetURL(outName, features.CustomScriptDir+f))
	}
	if s.Banner != nil {
		v.Banner = template.HTML(s.Banner(outName))
	}
	t.viewFeatures(v, outName)
	t.viewLogos(v, outName)
	t.viewHeaderLinks(v, outName)

	current := ""
	var chain []*config.Nav
	if p != nil {
		current = p.Path
		chain = t.chains[p.Path]
	} else {
		// 404.html shows the first section.
		chain = t.firstSectionChain()
	}
	root := t.viewDivisions(v, outName, chain)
	t.viewSidebar(v, outName, p, root, current)
	if p != nil {
		v.CurrentPath = "/" + strings.TrimSuffix(strings.TrimSuffix(p.Path, "index"), "/")
		if t.look.styling.Eyebrows == config.EyebrowsBreadcrumbs {
			v.Breadcrumbs = t.breadcrumbs(outName, chain)
		}
	}
	return v
}

// viewFeatures sets the optional features of v: the export page's content
// security policy, and the scripts and <meta> tags of search, the
// assistant and analytics when they are on.
func (t *Theme) viewFeatures(v *pageView, outName string) {
	s := t.s
	v.Features = s.Features
	v.CSP = t.metaCSP
	if v.Features.Search {
		v.SearchJSURL = s.Links.AssetURL(outName, features.SearchJSFile)
	}
	if v.Features.Assistant {
		v.AssistantJSURL = s.Links.AssetURL(outName, features.AssistantJSFile)
		v.AssistantMeta = template.HTML(features.MetaTag(features.AssistantMetaName, v.Features.AssistantURL))
	}
	if v.Features.Analytics {
		v.AnalyticsJSURL = s.Links.AssetURL(outName, features.AnalyticsJSFile)
		v.AnalyticsMeta = template.HTML(features.MetaTag(features.AnalyticsMetaName, v.Features.AnalyticsURL))
	}
}

// viewLogos sets the root URL of v (from its HomeURL), the logo's link,
// the favicon and the light and dark logos.
func (t *Theme) viewLogos(v *pageView, outName string) {
	s := t.s
	v.RootURL = v.HomeURL
	if s.Links.Export {
		v.RootURL = strings.TrimSuffix(v.HomeURL, "index.html")
	}
	v.LogoHref = v.HomeURL
	if t.logoHref != "" {
		v.LogoHref, _ = t.configLink(outName, t.logoHref)
	}
	if t.favicon != "" {
		v.Favicon = s.Links.AssetURL(outName, t.favicon)
	}
	if t.logoLight != "" {
		v.LogoLight = s.Links.AssetURL(outName, t.logoLight)
	}
	if t.logoDark != "" {
		v.LogoDark = s.Links.AssetURL(outName, t.logoDark)
	}
}

// viewHeaderLinks sets the navbar links and button of v, the anchors and
// the footer.
func (t *Theme) viewHeaderLinks(v *pageView, outName string) {
	s := t.s
	v.NavbarLinks = t.links(outName, s.Config.NavbarLinks)
	v.NavbarPrimary = t.primaryButton(outName) // navbar.go
	v.Anchors = t.links(outName, s.Config.Anchors)
	for i := range v.Anchors {
		v.Anchors[i].IconHTML = t.anchorIcons[i]
	}
	v.Footer = t.socials(outName) // socials.go
}

// firstSectionChain returns the navigation nodes from the root down to the
// first section, following at each level the first visible division that
// has a page.
func (t *Theme) firstSectionChain() []*config.Nav {
	var chain []*config.Nav
	for n := t.s.Config.Nav; n != nil; {
		chain = append(chain, n)
		var next *config.Nav
		for _, c := range n.Children {
			if c.IsDivision() && !c.Hidden && c.FirstPage() != "" {
				next = c
				break
			}
		}
		n = next
	}
	return chain
}

// viewDivisions sets the tabs and selectors of v from the divisions of
// chain, and returns the innermost division (or the navigation's root),
// whose sidebar the page shows.
func (t *Theme) viewDivisions(v *pageView, outName string, chain []*config.Nav) *config.Nav {
	// Each division of the chain offers its siblings: tabs and anchors as
	// tabs in the header, the other kinds as selectors. The sidebar shows
	// the innermost division.
	root := t.s.Config.Nav
	for i, n := range chain {
		if i == 0 || !n.IsDivision() {
			continue
		}
		root = n
		opts := t.divisionOptions(outName, chain[i-1], n)
		switch n.Kind {
		case config.NavTab, config.NavAnchor, config.NavMenu:
			v.Tabs = opts
		default:
			if len(opts) > 1 {
				v.Selectors = append(v.Selectors, selectorView{Kind: string(n.Kind), Current: n.Label, Options: opts})
			}
		}
	}
	return root
}

// divisionOptions lists the visible divisions among the children of
// parent that lead somewhere (a first page or a link), marking active as
// such.
func (t *Theme) divisionOptions(outName string, parent, active *config.Nav) []linkView {
	var opts []linkView
	for _, c := range parent.Children {
		if !c.IsDivision() || c.Hidden {
			continue
		}
		l := linkView{Label: c.Label, Icon: c.Icon, Active: c == active}
		if first := c.FirstPage(); first != "" {
			l.URL = t.s.Links.PageURL(outName, first)
		} else if c.Href != "" {
			l.URL, l.External = t.configLink(outName, c.Href)
		} else {
			continue
		}
		opts = append(opts, l)
	}
	return opts
}

// viewSidebar sets the sidebar of v: that of the navigation section root,
// with page current (empty for 404.html) marked. The sidebar of a large
// section is split (sidebar_split.go): the page's part of it, in an
// element that names the section's navigation file, from which site.js
// draws the rest, and the site's root, to which that file's URLs are
// relative in an export.
func (t *Theme) viewSidebar(v *pageView, outName string, p *page.Page, root *config.Nav, current string) {
	nav := t.flatNav(root)
	if nav.split {
		if pp := nav.part(t.split(), current); !nav.whole(pp) {
			v.NavURL = t.s.Links.AssetURL(outName, NavDir+nav.id+".js")
			v.Sidebar = template.HTML(`<div class="lc-nav-part" data-nav="` + html.EscapeString(nav.id) + `" data-root="` + html.EscapeString(v.RootURL) + `">` + "\n" +
				t.partHTML(root, nav, pp, outName, current) + "</div>")
			return
		}
	}
	if p != nil && p.Front.Hidden {
		// A hidden page is shown in the sidebar where the navigation has
		// it, on its own page only: that sidebar is not shared.
		var hid *hiddenEntry
		if h, ok := nav.hidden[p.Path]; ok {
			hid = &h
		}
		v.Sidebar = template.HTML(nav.full(t.s, outName, current, hid, nil))
	} else {
		v.Sidebar = t.sidebar(root, outName).forPage(current)
	}
}

// breadcrumbs lists the divisions (linked to their first page) and groups
// above a page, whose navigation nodes are chain, without the page
// itself (its title follows) nor a label repeating the one before it (a
// tab and its group both named "Overview").
func (t *Theme) breadcrumbs(outName string, chain []*config.Nav) []linkView {
	var out []linkView
	for i, n := range chain {
		switch {
		case i == 0 || n.Label == "" || len(out) > 0 && out[len(out)-1].Label == n.Label:
		case n.IsDivision():
			l := linkView{Label: n.Label}
			if first := n.FirstPage(); first != "" {
				l.URL = t.s.Links.PageURL(outName, first)
			}
			out = append(out, l)
		case n.Kind == config.NavGroup:
			out = append(out, linkView{Label: n.Label})
		}
	}
	return out
}

const (
	activeAttrs = ` class="lc-active" aria-current="page"`
	openAttr    = " open"
)

// links resolves configuration links for the output file outName.
func (t *Theme) links(outName string, list []config.Link) []linkView {
	var out []linkView
	for _, l := range list {
		u, ext := t.configLink(outName, l.Href)
		out = append(out, linkView{Label: l.Label, URL: safe.Href(u), Icon: l.Icon, External: ext})
	}
	return out
}

// configLink resolves a link of the configuration, warning (once) when an
// internal one is broken.
func (t *Theme) configLink(outName, href string) (u string, external bool) {
	if !safe.URLAllowed(href, false) {
		t.s.Config.Warn(t.w, href, "link %q removed: only http, https, mailto and tel URLs, relative links and fragments are allowed", diag.FirstLine(href, 60))
	}
	tg := t.configTarget(href)
	if tg.Kind == links.Missing {
		t.s.Config.Warn(t.w, href, "broken link %q: %s", href, tg.Reason)
	}
	return safe.Href(t.s.Links.URL(outName, tg)), tg.Kind == links.External
}

// configTarget is the target of a link of the configuration: href
// resolved, or "#" when it is not allowed.
func (t *Theme) configTarget(href string) links.Target {
	if !safe.URLAllowed(href, false) {
		return links.Target{Kind: links.Anchor, Suffix: "#"}
	}
	return t.s.Links.Resolve("", href)
}

// pageURL is the address of a page that is a link elsewhere (front
// matter "url"), as a link of outName; the build checked it and warned,
// with the page's file, when it is not allowed or broken (render:
// checkPageURLs).
func (t *Theme) pageURL(outName string, p *page.Page) (u string, external bool) {
	tg := t.pageTarget(p)
	return safe.Href(t.s.Links.URL(outName, tg)), tg.Kind == links.External
}

// pageTarget is the target of a page that is a link elsewhere: its
// front matter's "url" resolved, or "#" when that URL is not allowed.
func (t *Theme) pageTarget(p *page.Page) links.Target {
	return t.configTarget(p.Front.URL)
}
