// Package layout puts a rendered page body into the site's HTML: the
// header with logo, navbar and selectors, the tabs and anchors, the
// sidebar (whole up to Split.Min entries; past that, split between the
// page's group and the section's navigation file that site.js draws the
// rest from: sidebar_split.go, navfile.go), breadcrumbs, the table of
// contents, previous and next, the footer with its social links, the
// page actions ("Copy page" and the contextual menu of docs.json
// contextual, over the page's Markdown: contextual.go, theme/contextual.js),
// and 404.html. The theme/ folder holds the template, the stylesheet and
// the site's scripts (Asset).
//
// The stylesheet the build writes (Theme.CSS) is the theme's with the
// site's colours, then the syntax highlighting, the utility classes pages
// may use (theme/utilities.css, written by TestUtilitiesCSS from the list
// in utilities_gen_test.go) and the configured look (look.go: fonts,
// background, code block mode); contrast.go keeps buttons' labels and
// accents readable, and dark.go derives the rules of the toggle's dark
// mode from those of the system's, which the stylesheets write once.
// Pages link the repository's stylesheets after it (Site.CustomCSS).
//
// The build fills a Site once its pages are loaded and calls New; Theme's
// methods are then safe for concurrent use, and ForWarner gives each page's
// renderer a copy reporting to its own warnings. Prewarm finds the
// sidebars' warnings in navigation order and, for the rebuild cache, the
// hash of what each page shows of them (SidebarSum).
//
// layout knows the configuration, the pages and how links resolve; it
// does not know how a body is rendered from MDX, how files are written or
// what the rebuild cache keeps.
package layout
