package render

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// siteFS builds a source tree from an archive of "-- name --" sections,
// each followed by the file's content (a txtar-like format).
func siteFS(t *testing.T, archive string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	var name string
	var body strings.Builder
	flush := func() {
		if name != "" {
			fsys[name] = &fstest.MapFile{Data: []byte(body.String()), Mode: 0o644}
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(archive, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			if !fs.ValidPath(name) {
				t.Fatalf("bad file name %q in archive", name)
			}
			continue
		}
		if name != "" {
			body.WriteString(line)
		}
	}
	flush()
	return fsys
}

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

func (m *memOutput) has(name string) bool {
	_, ok := m.files[name]
	return ok
}

func (m *memOutput) get(t *testing.T, name string) string {
	t.Helper()
	data, ok := m.files[name]
	if !ok {
		t.Fatalf("output has no %s; it has %v", name, sortedKeys(m.files))
	}
	return string(data)
}

// build runs Build on an archive and fails the test on error.
func build(t *testing.T, archive string, opts Options) (*Result, *memOutput) {
	t.Helper()
	out := newMemOutput()
	res, err := Build(context.Background(), siteFS(t, archive), out, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return res, out
}

// readDir loads every file under dir, by slash-separated relative path.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var linkAttrRE = regexp.MustCompile(`<(a|img|source|video|audio|iframe|link|script)\b[^>]*?\s(href|src|poster)="([^"]*)"`)

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
	for _, name := range sortedKeys(files) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		for _, m := range linkAttrRE.FindAllStringSubmatch(string(files[name]), -1) {
			href := strings.ReplaceAll(m[3], "&amp;", "&")
			if href == "" || strings.HasPrefix(href, "#") || isExternal(href) {
				continue
			}
			p, _ := splitSuffix(href)
			if u, err := url.PathUnescape(p); err == nil {
				p = u
			}
			var target string
			if opts.Export {
				if strings.HasPrefix(p, "/") {
					t.Errorf("%s: export link %q is absolute", name, href)
					continue
				}
				target = path.Join(path.Dir(name), p)
			} else {
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
func warnedTargets(ws []Warning) map[string]bool {
	set := map[string]bool{}
	for _, w := range ws {
		m := quotedRE.FindStringSubmatch(w.Message)
		if m == nil {
			continue
		}
		p, _ := splitSuffix(m[1])
		if !strings.HasPrefix(p, "/") {
			p = path.Join("/", path.Dir(w.File), p)
		}
		set[strings.TrimPrefix(path.Clean(p), "/")] = true
	}
	return set
}

// externalRefRE finds anything in HTML, CSS or JS that would make a
// browser load something from another host.
var externalRefRE = regexp.MustCompile(`(?i)(\ssrc(set)?=["']?\s*(https?:)?//|<link\b[^>]*\shref=["']?\s*(https?:)?//|@import|url\(\s*["']?\s*(https?:)?//)`)

// checkNoExternalRefs fails for any output file that loads from another
// host. Canonical links name the site itself and load nothing.
func checkNoExternalRefs(t *testing.T, files map[string][]byte) {
	t.Helper()
	canonical := regexp.MustCompile(`<link rel="canonical" href="[^"]*">`)
	for _, name := range sortedKeys(files) {
		switch path.Ext(name) {
		case ".html", ".css", ".js":
		default:
			continue
		}
		text := canonical.ReplaceAllString(string(files[name]), "")
		if m := externalRefRE.FindStringIndex(text); m != nil {
			from := max(0, m[0]-60)
			t.Errorf("%s references another host: …%s…", name, text[from:min(len(text), m[1]+80)])
		}
	}
}

func memFiles(m *memOutput) map[string][]byte { return m.files }

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
