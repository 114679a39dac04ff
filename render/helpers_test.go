package render

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/search"
)

// memOutput keeps the built files in memory.
type memOutput struct {
	mu    sync.Mutex
	files map[string][]byte
}

func newMemOutput() *memOutput { return &memOutput{files: map[string][]byte{}} }

func (m *memOutput) WriteFile(name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.files[name]; dup {
		return &fs.PathError{Op: "write", Path: name, Err: fs.ErrExist}
	}
	m.files[name] = append([]byte(nil), data...)
	return nil
}

// has reports whether the output has file name; for Lectern's own assets,
// named by their content, name may be the name without the hash
// ("_lectern/style.css").
func (m *memOutput) has(name string) bool {
	_, ok := m.files[m.resolve(name)]
	return ok
}

// get returns file name of the output, failing the test when there is
// none; name may be an own asset's name without its hash, as for has.
func (m *memOutput) get(t *testing.T, name string) string {
	t.Helper()
	data, ok := m.files[m.resolve(name)]
	if !ok {
		t.Fatalf("output has no %s; it has %v", name, slices.Sorted(maps.Keys(m.files)))
	}
	return string(data)
}

// resolve returns name, or, when the output has no such file and name is
// that of one of Lectern's own assets without its hash, the name it was
// written under (ownAssetName).
func (m *memOutput) resolve(name string) string {
	if _, ok := m.files[name]; ok {
		return name
	}
	if n := ownAssetName(m.files, name); n != "" {
		return n
	}
	return name
}

// ownAssetName returns the name under which a build wrote Lectern's own
// asset name ("_lectern/style.css" → "_lectern/style.0123456789.css"), ""
// when it wrote none (or, which the tests would notice, several).
func ownAssetName(files map[string][]byte, name string) string {
	found := ""
	for f := range files {
		if features.HashedAsset(f) && features.AssetBase(f) == name {
			if found != "" {
				return ""
			}
			found = f
		}
	}
	return found
}

// ownAssetRE matches the name of one of Lectern's own assets without its
// hash, in a URL.
var ownAssetRE = regexp.MustCompile(`_lectern/[A-Za-z0-9-]+(\.min)?\.(js|css)\b`)

// named returns s, a page's expected markup, with the names of Lectern's
// own assets it holds ("../_lectern/style.css") replaced by those the
// build wrote them under ("../_lectern/style.0123456789.css").
func (m *memOutput) named(s string) string {
	return ownAssetRE.ReplaceAllStringFunc(s, func(name string) string {
		if n := ownAssetName(m.files, name); n != "" {
			return n
		}
		return name
	})
}

// hashedAssetRE matches the name of one of Lectern's own assets with its
// hash, in a URL.
var hashedAssetRE = regexp.MustCompile(`(_lectern/[A-Za-z0-9-]+(?:\.min)?)\.[0-9a-f]{10}(\.(?:js|css))\b`)

// unhashed returns s with the names of Lectern's own assets without their
// hash, for golden files, which would otherwise change with every change
// of the stylesheet or a script.
func unhashed(s string) string {
	return hashedAssetRE.ReplaceAllString(s, "$1$2")
}

// build runs Build on an archive and fails the test on error.
func build(t *testing.T, archive string, opts Options) (*Result, *memOutput) {
	t.Helper()
	out := newMemOutput()
	res, err := Build(context.Background(), sitetest.Archive(t, archive), out, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return res, out
}

// isLinkTag reports whether an opening tag is one that links or loads.
func isLinkTag(tag string) bool {
	for _, name := range []string{"a", "img", "source", "video", "audio", "iframe", "link", "script"} {
		if strings.HasPrefix(tag[1:], name) && len(tag) > len(name)+1 && strings.IndexByte(" \n>", tag[len(name)+1]) >= 0 {
			return true
		}
	}
	return false
}

// tagURLs returns the href, src and poster values of the elements that
// link or load something, in document order.
func tagURLs(doc string) []string {
	var out []string
	for i := 0; ; {
		k := strings.IndexByte(doc[i:], '<')
		if k < 0 {
			return out
		}
		i += k
		end := strings.IndexByte(doc[i:], '>')
		if end < 0 {
			return out
		}
		tag := doc[i : i+end+1]
		i += end + 1
		if !isLinkTag(tag) {
			continue
		}
		for _, attr := range []string{` href="`, ` src="`, ` poster="`} {
			if a := strings.Index(tag, attr); a >= 0 {
				v := tag[a+len(attr):]
				if q := strings.IndexByte(v, '"'); q >= 0 {
					out = append(out, v[:q])
				}
			}
		}
	}
}

// internalLink is a link of an output file to another file of the site.
type internalLink struct {
	from, href, target string
}

// internalLinks returns the links of all HTML files that point inside the
// site, resolved to output file names as a browser or Lectern's server
// would (live: /base/x → x.html; export: relative paths).
func internalLinks(t *testing.T, files map[string][]byte, opts Options) []internalLink {
	t.Helper()
	var out []internalLink
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		for _, raw := range tagURLs(string(files[name])) {
			href := strings.ReplaceAll(raw, "&amp;", "&")
			if href == "" || strings.HasPrefix(href, "#") || config.IsExternal(href) {
				continue
			}
			p, _ := links.SplitSuffix(href)
			if u, err := url.PathUnescape(p); err == nil {
				p = u
			}
			var target string
			switch {
			case opts.Export && name == "404.html":
				// Served for missing paths at any depth: absolute .html
				// paths under the site's path.
				if !strings.HasPrefix(p, opts.BasePath+"/") {
					t.Errorf("%s: export link %q is not absolute under the base path %q", name, href, opts.BasePath)
					continue
				}
				target = strings.TrimPrefix(p, opts.BasePath+"/")
			case opts.Export:
				if strings.HasPrefix(p, "/") {
					t.Errorf("%s: export link %q is absolute", name, href)
					continue
				}
				target = path.Join(path.Dir(name), p)
			default:
				if !strings.HasPrefix(p, opts.BasePath+"/") {
					t.Errorf("%s: live link %q is not under the base path %q", name, href, opts.BasePath)
					continue
				}
				target = strings.TrimPrefix(p, opts.BasePath+"/")
				switch {
				case target == "":
					target = "index.html"
				case files[target] == nil:
					target += ".html"
				}
				if strings.HasSuffix(p, ".html") {
					t.Errorf("%s: live link %q points at a .html file", name, href)
				}
			}
			out = append(out, internalLink{from: name, href: href, target: target})
		}
	}
	return out
}

var quotedRE = regexp.MustCompile(`"([^"]+)"`)

// warnedTargets returns the site paths (no leading slash, no extension for
// pages) that warnings name as missing.
func warnedTargets(ws []diag.Warning) map[string]bool {
	set := map[string]bool{}
	for _, w := range ws {
		m := quotedRE.FindStringSubmatch(w.Message)
		if m == nil {
			continue
		}
		p, _ := links.SplitSuffix(m[1])
		if !strings.HasPrefix(p, "/") {
			p = path.Join("/", path.Dir(w.File), p)
		}
		set[strings.TrimPrefix(path.Clean(p), "/")] = true
	}
	return set
}

// externalRef returns the first thing in an HTML, CSS or JS text that
// would make a browser load something from another host: a src or srcset,
// a <link href> (canonical links name the site itself and load nothing),
// an @import or a url().
func externalRef(text string) (int, bool) {
	lower := strings.ToLower(text)
	remote := func(v string) bool {
		v = strings.TrimLeft(v, "\"' \t\n")
		return strings.HasPrefix(v, "//") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://")
	}
	if i := strings.Index(lower, "@import"); i >= 0 {
		return i, true
	}
	for _, key := range []string{" src=", " srcset=", "\nsrc=", "url("} {
		for i := 0; ; {
			k := strings.Index(lower[i:], key)
			if k < 0 {
				break
			}
			i += k + len(key)
			if remote(lower[i:min(len(lower), i+12)]) {
				return i, true
			}
		}
	}
	for i := 0; ; {
		k := strings.Index(lower[i:], "<link")
		if k < 0 {
			break
		}
		i += k
		end := strings.IndexByte(lower[i:], '>')
		if end < 0 {
			break
		}
		tag := lower[i : i+end]
		if h := strings.Index(tag, " href="); h >= 0 && !strings.Contains(tag, `rel="canonical"`) && remote(tag[h+6:]) {
			return i, true
		}
		i += end
	}
	return 0, false
}

// checkNoExternalRefs fails for any output file that loads from another
// host.
func checkNoExternalRefs(t *testing.T, files map[string][]byte) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		switch path.Ext(name) {
		case ".html", ".css", ".js":
		default:
			continue
		}
		if features.AssetBase(name) == mermaidLibFile { // vendored library: "@import" etc. are CSS strings it parses, not loads
			continue
		}
		text := string(files[name])
		if i, found := externalRef(text); found {
			t.Errorf("%s references another host: …%s…", name, text[max(0, i-60):min(len(text), i+80)])
		}
	}
}

// searchIndexOf opens the search index of a built site.
func searchIndexOf(t testing.TB, out *memOutput) *search.Index {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range out.files {
		if strings.HasPrefix(name, search.Dir) {
			fsys[name] = &fstest.MapFile{Data: data}
		}
	}
	ix, err := search.Open(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// searchDocs returns the pages of a built site's search index.
func searchDocs(t testing.TB, out *memOutput) []search.Document {
	t.Helper()
	docs, err := searchIndexOf(t, out).Documents()
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// searchFor returns the links of a query's results in a built site.
func searchFor(t testing.TB, out *memOutput, q string) []string {
	t.Helper()
	rs, err := searchIndexOf(t, out).Search(q, 20)
	if err != nil {
		t.Fatal(err)
	}
	// The pages that tie with the last at the cut: which of them make
	// it is up to their numbers in the index, which a rebuild keeps.
	if len(rs) == 20 {
		last := rs[len(rs)-1].Score
		for len(rs) > 0 && rs[len(rs)-1].Score == last {
			rs = rs[:len(rs)-1]
		}
	}
	var links []string
	for _, r := range rs {
		links = append(links, r.Link())
	}
	return links
}

// outputDiff returns how a site built with a cache (got) differs from a
// clean build's (want), "" when it does not: the same files, byte for
// byte, but the search index's, which hold the same pages and give the
// same results though a rebuild keeps each page's number in the index
// (and so its fragment's name and the chunks' bytes).
func outputDiff(t testing.TB, got, want map[string][]byte) string {
	t.Helper()
	var gotIndex, wantIndex int
	for name, data := range want {
		if strings.HasPrefix(name, search.Dir) {
			wantIndex++
			continue
		}
		g, ok := got[name]
		if !ok {
			return name + " is missing"
		}
		if !bytes.Equal(g, data) {
			return name + " differs from a clean build's"
		}
	}
	for name := range got {
		if strings.HasPrefix(name, search.Dir) {
			gotIndex++
		} else if _, ok := want[name]; !ok {
			return name + " is not in a clean build"
		}
	}
	if gotIndex == 0 && wantIndex == 0 {
		return ""
	}
	a, b := &memOutput{files: got}, &memOutput{files: want}
	da, db := searchDocs(t, a), searchDocs(t, b)
	byPath := func(ds []search.Document) map[string]string {
		m := map[string]string{}
		for _, d := range ds {
			d.ID = 0
			m[d.Path] = fmt.Sprintf("%+v", d)
		}
		return m
	}
	if !reflect.DeepEqual(byPath(da), byPath(db)) {
		return fmt.Sprintf("the search index's pages differ from a clean build's:\n%v\n%v", byPath(da), byPath(db))
	}
	for _, d := range db {
		for _, q := range []string{d.Title, d.Title + " page"} {
			ra, rb := searchFor(t, a, q), searchFor(t, b, q)
			sort.Strings(ra)
			sort.Strings(rb)
			if !reflect.DeepEqual(ra, rb) {
				return fmt.Sprintf("search %q: %v, a clean build's %v", q, ra, rb)
			}
		}
	}
	return ""
}
