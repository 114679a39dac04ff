package layout

import (
	"html/template"

	"lectern.dev/lectern/render/icons"
)

// primaryButton returns the navbar's primary button for the output file
// outName, or nil: a GitHub or Discord button shows the network's icon
// before its label.
func (t *Theme) primaryButton(outName string) *linkView {
	b := t.s.Config.NavbarPrimary
	if b == nil {
		return nil
	}
	u, ext := t.configLink(outName, b.Href)
	l := &linkView{Label: b.Label, URL: u, External: ext}
	if b.Type == "github" || b.Type == "discord" {
		l.Icon = b.Type
		l.IconHTML = template.HTML(icons.SVG(b.Type, 0, ""))
	}
	return l
}
