package render

import (
	"path"
	"strings"

	"lectern.dev/lectern/render/features"
)

// Which files of the repository the site publishes besides its pages:
// those of a type a docs site serves (features.PublishedType), and any
// other file a page links to (page.Page.FileRefs). The rest (a Makefile,
// scripts/*.py, tests/ fixtures) is left out, as Mintlify leaves it out;
// a link to such a file that the build did not see is a broken link
// (links.Resolver.Unpublished).

// unpublishedFiles returns the files of the source that are neither
// pages nor published: not of a published type and linked to by no
// page. It runs once the pages are loaded.
func (s *site) unpublishedFiles() map[string]bool {
	out := map[string]bool{}
	for _, f := range s.fileList {
		if !features.PublishedType(f) && !strings.HasSuffix(f, ".mdx") && !strings.HasSuffix(f, ".md") {
			out[f] = true
		}
	}
	if len(out) == 0 {
		return out
	}
	for _, p := range s.order {
		for _, ref := range p.FileRefs {
			f := ref
			if strings.HasPrefix(f, "/") {
				f = path.Clean(f)
			} else {
				f = path.Join("/", path.Dir(p.Path), f)
			}
			delete(out, strings.TrimPrefix(f, "/"))
		}
	}
	return out
}
