package render

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"lectern.dev/lectern/render/limits"
)

// What the build leaves out of the site, as Mintlify does: folders of
// tools and builds (defaultIgnored), and what the repository's
// .mintignore lists, in .gitignore syntax. An ignored file is not read,
// built, copied or linked to: links to it are broken links. Dot-files and
// dot-folders are left out anyway (scan).

// defaultIgnored are the folders Mintlify leaves out without a
// .mintignore.
var defaultIgnored = []string{"node_modules/", "build/", "dist/", "coverage/", "tmp/", "temp/"}

// metaPages are the Markdown files of a repository that are about the
// repository, not pages of its docs: Mintlify does not publish them
// unless the navigation lists them.
var metaPages = map[string]bool{
	"readme": true, "license": true, "changelog": true, "contributing": true,
	"agents": true, "claude": true, "code_of_conduct": true, "security": true,
}

// maxIgnoreFile bounds the .mintignore file read.
const maxIgnoreFile = 64 << 10

// maxIgnorePatterns bounds the patterns of a .mintignore: each is
// matched against every path of the source (1,000 "**" patterns take
// about a second over 10,000 files; a real .mintignore has a few).
const maxIgnorePatterns = 200

// loadIgnore sets s.ignore from the default patterns and the source's
// .mintignore, if any, warning of what it cannot use.
func (s *site) loadIgnore() {
	var ps []gitignore.Pattern
	for _, p := range defaultIgnored {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	data, err := limits.ReadFile(s.src, ".mintignore", maxIgnoreFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		s.w.Add(".mintignore", 0, "not read (%v); only the default folders are left out", limits.ReadError(".mintignore", err))
	default:
		n := 0
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if n++; n > maxIgnorePatterns {
				s.w.Add(".mintignore", i+1, "more than %d patterns; the rest are ignored", maxIgnorePatterns)
				break
			}
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	s.ignore = gitignore.NewMatcher(ps)
}

// ignored reports whether the source path p (a folder when dir) is left
// out of the site.
func (s *site) ignored(p string, dir bool) bool {
	return s.ignore != nil && s.ignore.Match(strings.Split(p, "/"), dir)
}

// metaPage reports whether page file f is a file about the repository
// (README.md, AGENTS.md, ...) rather than a page of the docs.
func metaPage(f string) bool {
	base := f[strings.LastIndexByte(f, '/')+1:]
	name, isMD := strings.CutSuffix(strings.ToLower(base), ".md")
	return isMD && metaPages[name]
}
