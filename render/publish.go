package render

import (
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/links"
)

// Which files of the repository the site publishes besides its pages:
// those of a type a docs site serves (features.PublishedType), and any
// other file a page links to (page.Page.FileRefs). The rest (a Makefile,
// scripts/*.py, tests/ fixtures) is left out, as Mintlify leaves it out;
// a link to such a file that the build did not see is a broken link
// (links.Resolver.Unpublished).

// unpublishedFiles returns the files of the source that are neither
// pages nor published: not of a published type and linked to by no
// page. It runs once the pages are loaded, before s.links knows the
// unpublished files: a reference is resolved as the page's links are
// (relative to the page, escapes decoded).
func (s *site) unpublishedFiles() map[string]bool {
	out := map[string]bool{}
	for _, f := range s.fileList {
		if !features.PublishedType(f) && !links.IsPageFile(f) {
			out[f] = true
		}
	}
	if len(out) == 0 {
		return out
	}
	for _, p := range s.order {
		for _, ref := range p.FileRefs {
			if tg := s.links.Resolve(p.Path, ref); tg.Kind == links.File {
				delete(out, tg.Path)
			}
		}
	}
	return out
}
