package render

import (
	"bytes"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"

	"lectern.dev/lectern/render/config"
)

// Custom stylesheets.
//
// Mintlify includes every .css file of a docs repository on every page.
// So does Lectern: the build copies the .css files with the source's other
// files, and every page links them (the first maxEveryPageFiles), in the
// order of their paths, after the theme's stylesheet
// (layout.Site.CustomCSS), in live sites and exports alike. A stylesheet
// stays a file of the site, served from its origin; it is not inlined nor
// rewritten. What it would load from another host (an @import, a url() of
// a font or image) is blocked by the pages' policy (default-src 'self'),
// and the build warns of each such URL, so that the docs team can bundle
// the file.

// customStyleFiles returns the source's .css files that pages link,
// sorted (everyPageFiles).
func (s *site) customStyleFiles() []string {
	return s.everyPageFiles(".css", "stylesheets")
}

// maxCSSCheck is how much of each stylesheet checkCustomCSS reads: URLs
// past it are not warned of (the pages' policy blocks them all the same).
const maxCSSCheck = 4 << 20

// checkCustomCSS warns of the URLs of other hosts in the stylesheets
// pages link, which pages do not load.
func (s *site) checkCustomCSS() {
	for _, f := range s.customCSS {
		data, err := readPrefix(s.src, f, maxCSSCheck)
		if err != nil {
			s.w.Add(f, 0, "stylesheet not readable: %v", err)
			continue
		}
		for _, u := range externalCSSURLs(data) {
			s.w.Add(f, u.line, "%s %q is on another host and is not loaded (pages load nothing from other hosts): add the file to the repository and name it by its path",
				u.kind, u.url)
		}
	}
}

// readPrefix reads up to n bytes of file name of fsys.
func readPrefix(fsys fs.FS, name string, n int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// cssURL is a URL a stylesheet loads, with the line it is on.
type cssURL struct {
	kind, url string
	line      int
}

var (
	cssCommentRE = regexp.MustCompile(`(?s)/\*.*?\*/`)
	// cssImportRE and cssURLRE find @import "x", @import url(x) and
	// url(x), quoted or not.
	cssImportRE = regexp.MustCompile(`(?i)@import\s+(?:url\(\s*)?(?:"([^"]*)"|'([^']*)'|([^"')\s;]+))`)
	cssURLRE    = regexp.MustCompile(`(?i)\burl\(\s*(?:"([^"]*)"|'([^']*)'|([^"')\s]+))`)
)

// externalCSSURLs returns the @import and url() URLs of a stylesheet that
// name another host, in order. Comments are left out (replaced by as many
// newlines, so that lines stay right).
func externalCSSURLs(css []byte) []cssURL {
	css = cssCommentRE.ReplaceAllFunc(css, func(c []byte) []byte {
		return bytes.Repeat([]byte{'\n'}, bytes.Count(c, []byte{'\n'}))
	})
	var newlines []int // the offsets of the line ends, for lineAt
	for i, c := range css {
		if c == '\n' {
			newlines = append(newlines, i)
		}
	}
	lineAt := func(offset int) int {
		n, _ := slices.BinarySearch(newlines, offset)
		return n + 1
	}
	var out []cssURL
	imports := map[int]bool{}
	for _, m := range cssImportRE.FindAllSubmatchIndex(css, -1) {
		start, u := matchedURL(css, m)
		imports[start] = true
		if config.IsExternal(u) && !strings.HasPrefix(strings.ToLower(u), "data:") {
			out = append(out, cssURL{kind: "@import", url: u, line: lineAt(m[0])})
		}
	}
	for _, m := range cssURLRE.FindAllSubmatchIndex(css, -1) {
		start, u := matchedURL(css, m)
		if imports[start] || !config.IsExternal(u) || strings.HasPrefix(strings.ToLower(u), "data:") {
			continue
		}
		out = append(out, cssURL{kind: "url()", url: u, line: lineAt(m[0])})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

// matchedURL returns the URL a match of cssImportRE or cssURLRE found (in
// double quotes, single quotes or none) and where it starts.
func matchedURL(css []byte, m []int) (int, string) {
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 {
			return m[2*g], string(css[m[2*g]:m[2*g+1]])
		}
	}
	return m[0], ""
}
