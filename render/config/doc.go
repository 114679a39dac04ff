// Package config reads a site's configuration and navigation: docs.json,
// the legacy mint.json, or, without either, the folder tree (FolderNav).
//
// Load returns a Config (name, colors, logo, links, redirects, the raw
// settings) whose Nav is the navigation tree: tabs, anchors, dropdowns,
// versions, languages, groups and pages, each page a clean path such as
// "guides/x". The settings of the look (appearance, fonts, background,
// styling) and the navbar's button are typed in appearance.go and
// navbar.go, each bad value a warning and its default. NavOpenAPI is an "openapi" setting of the navigation, which
// the build expands into generated pages. RedirectTable matches a path
// against the configuration's redirects (with :params and *).
//
// To support a new navigation form, add it to navBuilder (nav.go) as a new
// NavKind; the theme draws every kind through Nav.
//
// It knows nothing of pages' content, MDX or HTML: it reads JSON and
// returns the model the rest of the build follows.
package config
