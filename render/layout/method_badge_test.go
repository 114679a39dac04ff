package layout

import (
	"testing"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/page"
)

// TestMethodBadge reads pages' front matter as page.Load does and checks
// the method badge of their sidebar entry.
func TestMethodBadge(t *testing.T) {
	for _, c := range []struct {
		front string
		want  string
	}{
		{`openapi: "GET /plants"`, `<span class="lc-nav-method lc-nav-method-get">GET</span>`},
		{`openapi: "specs/api.json delete /plants/{id}"`, `<span class="lc-nav-method lc-nav-method-delete">DEL</span>`},
		{`openapi: "WEBHOOK plant.created"`, `<span class="lc-nav-method lc-nav-method-webhook">HOOK</span>`},
		{`api: "POST https://api.test/v1/users"`, `<span class="lc-nav-method lc-nav-method-post">POST</span>`},
		{"openapi: \"PATCH /x\"\nhideApiMarker: true", ""},
		{`api: "not an endpoint"`, ""},
		{`title: Plain`, ""},
	} {
		p := page.Load("x", "x.mdx", "---\n"+c.front+"\n---\nBody.\n", &diag.Warner{})
		if got := methodBadge(p); got != c.want {
			t.Errorf("methodBadge of %q = %s, want %s", c.front, got, c.want)
		}
	}
}
