package render

import (
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/icons"
)

// checkIcons warns about the icons of the configuration (icons.library,
// the navigation's and its links' icons) and of the pages' front matter
// that no bundled set draws, once per name and place: components warn
// about their own (render/components), so that no icon is left out
// without a warning.
func (s *site) checkIcons() {
	lib, value, ok := s.cfg.IconLibrary()
	if !ok {
		s.cfg.Warn(s.w, value, "icons.library %q is not fontawesome, lucide or tabler; using Font Awesome", value)
	}
	seen := map[string]bool{}
	check := func(name string) {
		if name == "" || icons.IsPath(name) || seen[name] {
			return
		}
		seen[name] = true
		if !lib.Resolves(name, "") {
			s.cfg.Warn(s.w, name, "unknown icon %q", name)
		}
	}
	var walk func(n *config.Nav)
	walk = func(n *config.Nav) {
		check(n.Icon)
		for _, c := range n.Children {
			walk(c)
		}
	}
	if s.cfg.Nav != nil {
		walk(s.cfg.Nav)
	}
	for _, links := range [][]config.Link{s.cfg.Anchors, s.cfg.NavbarLinks} {
		for _, l := range links {
			check(l.Icon)
		}
	}
	for _, p := range s.order {
		if ic := p.Front.Icon; ic != "" && !icons.IsPath(ic) && !lib.Resolves(ic, "") {
			s.w.Add(p.File, 1, "unknown icon %q (front matter)", ic)
		}
	}
}
