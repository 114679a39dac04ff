package layout

import (
	"path"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/page"
)

// inPager reports whether previous and next links lead through page p:
// a page the sidebar lists (in the navigation, not hidden) that is a page
// rather than a link elsewhere (front matter "url").
func inPager(p *page.Page) bool {
	return !p.Unlisted && !p.Front.Hidden && p.Front.URL == ""
}

// Neighbours returns the pages before and after p in the navigation's
// order that previous and next links lead through, nil at either end and
// for a page they do not lead through.
func (t *Theme) Neighbours(p *page.Page) (prev, next *page.Page) {
	i, ok := t.index[p]
	if !ok {
		return nil, nil
	}
	if i > 0 {
		prev = t.seq[i-1]
	}
	if i+1 < len(t.seq) {
		next = t.seq[i+1]
	}
	return prev, next
}

// placeUnlisted gives each unlisted page (page.Page.Unlisted) the
// divisions of the navigation page nearest it in the folder tree, so that
// it shows that section's tabs and sidebar: a page of guides/ shows the
// section that lists guides/ pages. A page with no such neighbour shows
// the first section.
func (t *Theme) placeUnlisted() {
	var folders map[string][]*config.Nav
	for _, p := range t.s.Order {
		if !p.Unlisted {
			continue
		}
		if folders == nil {
			folders = map[string][]*config.Nav{}
			for _, q := range t.s.Order {
				if q.Unlisted {
					continue
				}
				for dir := path.Dir(q.Path); ; dir = path.Dir(dir) {
					if _, ok := folders[dir]; ok {
						break
					}
					folders[dir] = divisionsOf(t.chains[q.Path])
					if dir == "." {
						break
					}
				}
			}
		}
		chain := t.firstSectionChain()
		for dir := path.Dir(p.Path); ; dir = path.Dir(dir) {
			if c, ok := folders[dir]; ok && c != nil {
				chain = c
				break
			}
			if dir == "." {
				break
			}
		}
		t.chains[p.Path] = chain
	}
}

// divisionsOf returns chain up to its last division: the root and the
// divisions that hold a page, without its groups.
func divisionsOf(chain []*config.Nav) []*config.Nav {
	end := min(1, len(chain))
	for i, n := range chain {
		if n.IsDivision() {
			end = i + 1
		}
	}
	return chain[:end:end]
}
