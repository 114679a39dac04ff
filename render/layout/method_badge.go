package layout

import (
	"strings"

	"lectern.dev/lectern/render/openapi"
	"lectern.dev/lectern/render/page"
)

// methodBadge returns the badge of the HTTP method shown before the
// sidebar label of an API page, as Mintlify shows it: a page generated from
// an OpenAPI document or with openapi or api front matter ("GET /plants",
// "openapi.json POST /plants", "POST https://api.test/v1/users"). It is ""
// for other pages and when the front matter sets hideApiMarker.
func methodBadge(p *page.Page) string {
	if p == nil || p.Front.HideAPIMarker {
		return ""
	}
	ref := p.Front.OpenAPI
	if ref == "" {
		ref = p.Front.API
	}
	r, ok := openapi.ParseRef(ref)
	if !ok {
		return ""
	}
	label := r.Method
	switch label {
	case "DELETE":
		label = "DEL"
	case "WEBHOOK":
		label = "HOOK"
	}
	return `<span class="lc-nav-method lc-nav-method-` + strings.ToLower(r.Method) + `">` + label + "</span>"
}
