package render

import (
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/search"
)

// featureAssets are the files of the build's features, besides the search
// index (site_files.go) and playground.js (openapi_page.go, when a page has a
// playground).
func (s *site) featureAssets() []siteFile {
	f := s.opts.features()
	var files []siteFile
	if f.Search {
		files = append(files, siteFile{features.SearchJSFile, searchJS})
	}
	if f.Assistant {
		files = append(files, siteFile{features.AssistantJSFile, assistantJS})
	}
	if f.Analytics {
		files = append(files, siteFile{features.AnalyticsJSFile, analyticsJS})
	}
	return files
}

// featureCSS is the build's stylesheet: the rules of the features that are
// off are removed, those of the others kept between their markers.
func (s *site) featureCSS(css []byte) []byte {
	return s.opts.features().TransformRegions(css, features.CSSBeginMarker, features.CSSEndMarker, true, nil)
}

// The scripts of the features (theme/).
var (
	searchJS    = []byte(search.StemJS + search.InflateJS + search.QueryJS + string(layout.Asset("theme/search.js")))
	assistantJS = layout.Asset("theme/assistant.js")
	analyticsJS = layout.Asset("theme/analytics.js")
)
