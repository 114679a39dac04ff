package render

import (
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/search"
)

// featureCSS is the build's stylesheet: the rules of the features that are
// off are removed, those of the others kept between their markers.
func (s *site) featureCSS(css []byte) []byte {
	return s.opts.features().TransformRegions(css, features.CSSBeginMarker, features.CSSEndMarker, true, nil)
}

// The scripts of the features (theme/), written under names with their
// hash (own_assets.go).
var (
	searchJS    = []byte(search.StemJS + search.UnsnapJS + search.QueryJS + string(layout.Asset("theme/search.js")))
	assistantJS = layout.Asset("theme/assistant.js")
	analyticsJS = layout.Asset("theme/analytics.js")
)
