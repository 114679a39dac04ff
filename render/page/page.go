// Package page reads one navigation page of a docs tree: its source made
// valid text (NormalizeNewlines, TextSource), the YAML front matter
// (FrontMatter) and the title, from the front matter or the first heading
// (Load). It owns the Page the rest of the build passes around; it knows
// nothing of how a page is rendered, laid out, indexed or cached.
package page

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
	"lectern.dev/lectern"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/mdx"
)

// FrontMatter is the YAML header of a page.
type FrontMatter struct {
	Title, Description, SidebarTitle, Icon string
	// OpenAPI is an operation reference such as "GET /plants" or
	// "openapi.json POST /plants".
	OpenAPI string
	// Mode is the layout: "", "wide", "center", "custom", "frame".
	Mode     string
	Hidden   bool
	NoIndex  bool
	Keywords []string
	// Tag is a short label shown beside the page's name in the sidebar
	// ("NEW"); Deprecated adds a "Deprecated" one.
	Tag        string
	Deprecated bool
	// URL makes the page a sidebar link to that address (an external
	// page) instead of a page of its own.
	URL string
	// NotSearchable ("searchable: false") leaves the page out of the
	// site's search, not out of the sitemap.
	NotSearchable bool
	// HideFooterPagination leaves out the previous and next links.
	HideFooterPagination bool
	// API is the "api" key ("POST https://api.test/v1/users"), an
	// endpoint without an OpenAPI document; HideAPIMarker
	// ("hideApiMarker") leaves the method out of the page's sidebar entry.
	// Both show in other pages' sidebars: they are kept with the page's
	// record in the rebuild cache, where Raw is not.
	API           string
	HideAPIMarker bool
	// Raw holds every key, for settings this version does not read.
	Raw map[string]any
}

// Page is a navigation page and its parsed source.
type Page struct {
	Path     string // navigation path, e.g. "guides/x"
	File     string // source file, e.g. "guides/x.mdx"
	Front    FrontMatter
	Title    string
	Body     string // source after the front matter
	BodyLine int    // line of the body's first byte in file
	MDX      bool
	// FileRefs are the links and sources of the body that name a file of
	// a type the site does not publish by itself (FileRefs), as written.
	FileRefs []string
	// Unlisted is set for a page of the repository that the navigation
	// does not list: it is built and served at its path, but is in no
	// sidebar, previous/next link, search index or sitemap.
	Unlisted bool
}

// NormalizeNewlines turns CRLF and CR line ends into LF and drops a BOM.
func NormalizeNewlines(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// SplitFrontMatter separates a leading "---" YAML block from the body. It
// returns the YAML text, the body and the body's first line.
func SplitFrontMatter(src string) (yml, body string, bodyLine int, ok bool) {
	if !strings.HasPrefix(src, "---") {
		return "", src, 1, false
	}
	first, rest, found := strings.Cut(src, "\n")
	if !found || strings.TrimSpace(first) != "---" {
		return "", src, 1, false
	}
	line := 2
	var b strings.Builder
	for rest != "" {
		l, r, _ := strings.Cut(rest, "\n")
		if t := strings.TrimRight(l, " \t"); t == "---" || t == "..." {
			return b.String(), r, line + 1, true
		}
		b.WriteString(l)
		b.WriteByte('\n')
		rest = r
		line++
	}
	return "", src, 1, false
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

const (
	// maxFrontMatter bounds the YAML header: yaml.v3 takes time and
	// memory that grow faster than the header (its error for repeated
	// keys lists every earlier one), so a larger header is ignored.
	maxFrontMatter = 64 << 10
	// maxYAMLError bounds the part of a YAML error kept in a warning.
	maxYAMLError = 200
)

// ParseFrontMatter decodes the YAML header of file. Invalid YAML is a
// warning and yields an empty header.
func ParseFrontMatter(yml, file string, w *diag.Warner) FrontMatter {
	var fm FrontMatter
	if strings.TrimSpace(yml) == "" {
		return fm
	}
	if len(yml) > maxFrontMatter {
		w.Add(file, 1, "invalid front matter: larger than %d KiB; ignored", maxFrontMatter>>10)
		return fm
	}
	// yaml.v3 itself rejects alias expansion that grows out of proportion
	// to the document ("billion laughs"), with an error reported below.
	var raw map[string]any
	if err := decodeYAML(yml, &raw); err != nil {
		line := 1
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineRE.FindStringSubmatch(firstBytesOf(msg, 100)); m != nil {
			n, _ := strconv.Atoi(m[1])
			line += n
			msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
		}
		w.Add(file, line, "invalid front matter: %s", lectern.Truncate(msg, maxYAMLError))
		return fm
	}
	fm.Raw = raw
	fm.Title = scalar(raw["title"])
	fm.Description = scalar(raw["description"])
	fm.SidebarTitle = scalar(raw["sidebarTitle"])
	fm.Icon = scalar(raw["icon"])
	fm.OpenAPI = scalar(raw["openapi"])
	fm.Mode = scalar(raw["mode"])
	fm.Hidden = truthy(raw["hidden"])
	fm.NoIndex = truthy(raw["noindex"])
	fm.Tag = scalar(raw["tag"])
	fm.Deprecated = truthy(raw["deprecated"])
	fm.URL = scalar(raw["url"])
	fm.NotSearchable = falsy(raw["searchable"])
	fm.HideFooterPagination = truthy(raw["hideFooterPagination"])
	if v, ok := raw["api"].(string); ok {
		fm.API = strings.TrimSpace(v)
	}
	fm.HideAPIMarker = truthy(raw["hideApiMarker"])
	switch k := raw["keywords"].(type) {
	case []any:
		for _, v := range k {
			if s := scalar(v); s != "" {
				fm.Keywords = append(fm.Keywords, s)
			}
		}
	case string:
		for _, s := range strings.Split(k, ",") {
			if s = strings.TrimSpace(s); s != "" {
				fm.Keywords = append(fm.Keywords, s)
			}
		}
	}
	return fm
}

// decodeYAML decodes yml into out. It parses to a node tree first and
// checks it for repeated mapping keys itself, in linear time: yaml.v3
// compares every pair of keys of a mapping and lists every repetition in
// its error, which for a header of many repeated keys takes time and
// memory quadratic in its size.
func decodeYAML(yml string, out any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(yml), &doc); err != nil {
		return err
	}
	if doc.Kind == 0 {
		return nil
	}
	type key struct {
		kind  yaml.Kind
		value string
	}
	stack := []*yaml.Node{&doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.MappingNode {
			seen := make(map[key]int, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if first, dup := seen[key{k.Kind, k.Value}]; dup {
					return fmt.Errorf("line %d: mapping key %q already defined at line %d", k.Line, firstBytesOf(k.Value, 60), first)
				}
				seen[key{k.Kind, k.Value}] = k.Line
			}
		}
		// Aliases are not followed: their targets are in the tree.
		stack = append(stack, n.Content...)
	}
	return doc.Decode(out)
}

// firstBytesOf returns at most the first n bytes of s.
func firstBytesOf(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case bool, int, int64, float64, uint64:
		return fmt.Sprint(x)
	}
	return ""
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x == "true" || x == "yes"
	}
	return false
}

// falsy reports whether v is an explicit false ("searchable: false").
func falsy(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case string:
		return x == "false" || x == "no"
	}
	return false
}

// MaxSource bounds the source of a page or snippet. Goldmark's time
// grows faster than linearly on some inputs (long runs of brackets,
// emphasis or tags on one line), so a larger file is replaced by a short
// notice rather than rendered.
const MaxSource = 1 << 20

// TooLargeNotice is the body that replaces a source of n bytes that is
// larger than MaxSource.
func TooLargeNotice(n int) string {
	return fmt.Sprintf("<p class=\"lc-page-too-large\">This page is too large to be shown (%s; the limit is %d MiB).</p>\n",
		limits.FormatSize(int64(n)), MaxSource>>20)
}

// TextSource makes the source of a page or snippet valid UTF-8 text: NUL
// bytes and bytes that are not UTF-8 are replaced by U+FFFD, with a warning
// giving the line of the first, so that a binary file saved as a page is
// reported and no output is invalid UTF-8.
func TextSource(file, src string, w *diag.Warner) string {
	if nul := strings.IndexByte(src, 0); nul >= 0 {
		w.Add(file, 1+strings.Count(src[:nul], "\n"), "binary file, not text (it has NUL bytes); shown with \uFFFD for the bytes that are not text")
		src = strings.ReplaceAll(src, "\x00", "\uFFFD")
	} else if !utf8.ValidString(src) {
		bad := 0
		for bad < len(src) {
			r, size := utf8.DecodeRuneInString(src[bad:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			bad += size
		}
		w.Add(file, 1+strings.Count(src[:bad], "\n"), "not valid UTF-8 text; the invalid bytes are shown as \uFFFD")
	}
	return strings.ToValidUTF8(src, "\uFFFD")
}

// Load parses a page's source.
func Load(navPath, file, src string, w *diag.Warner) *Page {
	src = NormalizeNewlines(TextSource(file, src, w))
	yml, body, bodyLine, _ := SplitFrontMatter(src)
	if len(src) > MaxSource {
		w.Add(file, 1, "page source larger than %d MiB (%s); its content is not shown", MaxSource>>20, limits.FormatSize(int64(len(src))))
		body = TooLargeNotice(len(src))
	}
	p := &Page{Path: navPath, File: file, Body: body, BodyLine: bodyLine, MDX: strings.HasSuffix(file, ".mdx")}
	p.Front = ParseFrontMatter(yml, file, w)
	p.Title = p.Front.Title
	if p.Title == "" {
		if t, start, end, first := firstHeading(body); t != "" {
			p.Title = t
			if first {
				// The heading becomes the page title; keep the line count.
				p.Body = body[:start] + body[end:]
			}
		}
	}
	if p.Title == "" {
		p.Title = config.Humanize(path.Base(navPath))
	}
	p.FileRefs = FileRefs(p.Body)
	return p
}

// refMarkers start the link destinations and sources FileRefs reads:
// Markdown's ](x), and href or src attributes, quoted or in braces.
var refMarkers = [...]string{"](", "href=", "src="}

// maxFileRefs bounds the references kept of one page.
const maxFileRefs = 100

// FileRefs returns the local links and sources of body that name a file
// by an extension the site does not publish by itself
// (features.PublishedType): a page may link to scripts/setup.py, which
// is then published. Each is returned once, as written, without its
// query or fragment.
func FileRefs(body string) []string {
	var out []string
	// next[k] is where refMarkers[k] next occurs at or after i (-1: no
	// more; -2: not looked for yet), found again only once i passes it:
	// one scan of body for each marker.
	next := [len(refMarkers)]int{-2, -2, -2}
	for i := 0; i < len(body); {
		at, kind := -1, 0
		for k, m := range refMarkers {
			if next[k] != -1 && next[k] < i {
				if j := strings.Index(body[i:], m); j >= 0 {
					next[k] = i + j
				} else {
					next[k] = -1
				}
			}
			if next[k] >= 0 && (at < 0 || next[k] < at) {
				at, kind = next[k], k
			}
		}
		if at < 0 {
			break
		}
		ref, end := refAt(body, at, kind)
		if end < 0 {
			i = at + 1
			continue
		}
		i = end
		if ref, ok := fileRef(ref); ok && !slices.Contains(out, ref) {
			if out = append(out, ref); len(out) == maxFileRefs {
				break
			}
		}
	}
	return out
}

// fileRef returns destination ref without its query or fragment, and
// whether it names a local file of a type the site does not publish by
// itself.
func fileRef(ref string) (string, bool) {
	if j := strings.IndexAny(ref, "?#"); j >= 0 {
		ref = ref[:j]
	}
	ext := path.Ext(ref)
	return ref, ext != "" && ext != ".mdx" && ext != ".md" && ext != ".html" && !features.PublishedType(ref) &&
		!strings.Contains(ref, ":") && !strings.HasPrefix(ref, "//")
}

// refAt reads the destination that the marker refMarkers[kind] at body[at]
// starts: after "](" blanks and a "<" may come first; after href= or src=
// (not ending a longer name) a "{" and blanks may, then a quote must. It
// returns the destination and where it ends, or end -1 when there is none.
func refAt(body string, at, kind int) (ref string, end int) {
	i := at + len(refMarkers[kind])
	if kind == 0 {
		i = skipBlanks(body, i)
		if i < len(body) && body[i] == '<' {
			i++
		}
	} else {
		if at > 0 && isWordByte(body[at-1]) {
			return "", -1
		}
		if i < len(body) && body[i] == '{' {
			i++
		}
		i = skipBlanks(body, i)
		if i >= len(body) || body[i] != '"' && body[i] != '\'' {
			return "", -1
		}
		i++
	}
	start := i
	for i < len(body) && !strings.ContainsRune(" \t\n\f\r\"'()<>{}", rune(body[i])) {
		i++
	}
	if i == start {
		return "", -1
	}
	return body[start:i], i
}

func skipBlanks(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n\f\r", s[i]) >= 0 {
		i++
	}
	return i
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

var (
	atxH1RE   = regexp.MustCompile(`^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$`)
	mdMarksRE = regexp.MustCompile("[*_`]+")
)

// firstHeading finds the first level-1 ATX heading outside code fences. It
// returns its text, the byte range of its line (without the newline) and
// whether it comes before any other content.
func firstHeading(body string) (title string, start, end int, first bool) {
	first = true
	var fence mdx.FenceState
	off := 0
	for off < len(body) {
		lineEnd := strings.IndexByte(body[off:], '\n')
		if lineEnd < 0 {
			lineEnd = len(body)
		} else {
			lineEnd += off
		}
		line := body[off:lineEnd]
		if fence.Line(line) {
			first = false
		} else if m := atxH1RE.FindStringSubmatch(line); m != nil {
			return strings.TrimSpace(mdMarksRE.ReplaceAllString(m[1], "")), off, lineEnd, first
		} else if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "import ") && !strings.HasPrefix(t, "{/*") {
			first = false
		}
		off = lineEnd + 1
	}
	return "", 0, 0, false
}
