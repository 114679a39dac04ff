package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/render/search"
)

// Site is the docs site the tools read: its search and its pages'
// Markdown. Callers implement it over a deployment (FSSite does, over a
// built site's files).
type Site interface {
	// Search returns up to limit passages for query, best first. It is
	// called only when Info.Search is set.
	Search(ctx context.Context, query string, limit int) ([]Passage, error)
	// Page returns the Markdown of the page at path, a clean page path
	// ("index", "deploy", "guides/billing": no extension, no leading
	// slash, fs.ValidPath), or an error wrapping ErrNotFound when the
	// site has no such page. The Markdown may be longer than MaxPage: the
	// tool cuts it.
	Page(ctx context.Context, path string) (Page, error)
}

// Passage is a section of a page that matches a query.
type Passage struct {
	Title   string // the page's title
	Heading string // the section's heading; "" for the page's opening
	// URL is the passage's URL as the site's search index holds it:
	// root-relative on a live site ("/docs/deploy#rolling-back"),
	// relative to the site's root in an export ("deploy.html#rolling-back").
	URL  string
	Text string // the section's text; the tool shows an excerpt
}

// Page is a page's Markdown.
type Page struct {
	// Path is the page's path, as given or as found ("guides" may be
	// "guides/index").
	Path     string
	Title    string // "" when unknown
	Markdown string
	// Size is the whole file's size in bytes, when Markdown holds only
	// its beginning; 0 when Markdown is all of it.
	Size int64
}

// ErrNotFound is the error a Site's Page wraps when the site has no page
// at the path.
var ErrNotFound = errors.New("no such page")

// MaxPage bounds the Markdown of a page the get_page tool returns, in
// bytes; a longer page is cut, with a note saying so.
const MaxPage = 512 << 10

// FSSite is a Site over a built site's files: its search index for
// Search (assistant.Retrieve, the assistant's retrieval) and the Markdown
// file the build writes beside each page ("guides/billing.html" and
// "guides/billing.md") for Page.
//
// FS should not follow links out of the site: give it an os.Root's FS
// (os.OpenRoot(dir).FS()), not os.DirFS, for a folder on disk. FSSite
// reads only files named by a page path that fs.ValidPath accepts, ending
// in ".md", and only regular files.
type FSSite struct {
	FS fs.FS
	// Index is the site's search index (search.Open over the same
	// files); nil when the site has none, and then Search fails.
	Index *search.Index
}

var _ Site = FSSite{}

// Search returns up to limit passages of the site's search index for
// query, through assistant.Retrieve.
func (s FSSite) Search(ctx context.Context, query string, limit int) ([]Passage, error) {
	if s.Index == nil {
		return nil, errors.New("this site has no search index")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ps, err := assistant.Retrieve(s.Index, query, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Passage, len(ps))
	for i, p := range ps {
		out[i] = Passage{Title: p.Title, Heading: p.Heading, URL: p.URL, Text: p.Text}
	}
	return out, nil
}

// Page reads the Markdown file of the page at path: path + ".md", or,
// when there is none, path + "/index.md" (a folder's page). It reads at
// most MaxPage bytes of it.
func (s FSSite) Page(ctx context.Context, path string) (Page, error) {
	if err := checkPagePath(path); err != nil {
		return Page{}, err
	}
	candidates := []string{path}
	if path != "index" && !strings.HasSuffix(path, "/index") {
		candidates = append(candidates, path+"/index")
	}
	for _, p := range candidates {
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		pg, err := readPage(s.FS, p)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		return pg, err
	}
	return Page{}, fmt.Errorf("%w: %s", ErrNotFound, path)
}

// readPage reads the Markdown file of page p, a regular file, at most
// MaxPage bytes of it.
func readPage(fsys fs.FS, p string) (Page, error) {
	f, err := fsys.Open(p + ".md")
	if err != nil {
		// A missing file, and one the fs refuses to open (a link out of
		// an os.Root, a file it may not read), are no page; a failure of
		// the fs itself (an object store's outage) is an error.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return Page{}, ErrNotFound
		}
		return Page{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Page{}, err
	}
	if !st.Mode().IsRegular() {
		return Page{}, ErrNotFound
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxPage+1))
	if err != nil {
		return Page{}, err
	}
	pg := Page{Path: p, Markdown: string(data)}
	if len(data) > MaxPage {
		pg.Size = max(st.Size(), int64(len(data)))
		pg.Markdown = cutAt(pg.Markdown, MaxPage)
	}
	pg.Title = markdownTitle(pg.Markdown)
	return pg, nil
}

// maxPath bounds a page path, and the get_page tool's argument, in bytes.
const maxPath = 1024

// checkPagePath reports whether p is a clean page path: valid UTF-8
// without control characters or backslashes, of at most maxPath bytes,
// that fs.ValidPath accepts (no "..", ".", empty elements or leading
// slash) and with no element starting with a dot.
func checkPagePath(p string) error {
	switch {
	case p == "":
		return errors.New("the path is empty")
	case len(p) > maxPath:
		return fmt.Errorf("the path is longer than %d bytes", maxPath)
	case !utf8.ValidString(p):
		return errors.New("the path is not valid UTF-8")
	case strings.ContainsRune(p, '\\'):
		return errors.New(`the path has a backslash: separate its parts with "/"`)
	case strings.ContainsFunc(p, isControl):
		return errors.New("the path has a control character")
	case !fs.ValidPath(p):
		return errors.New(`the path must stay inside the site: no "..", "." or empty parts`)
	}
	for _, el := range strings.Split(p, "/") {
		if strings.HasPrefix(el, ".") {
			return errors.New(`no part of the path may start with "."`)
		}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// markdownTitle returns the title of a page's Markdown: its front
// matter's title, or its first line that is a level-1 heading.
func markdownTitle(md string) string {
	rest, ok := strings.CutPrefix(md, "---\n")
	if ok {
		fm, _, closed := strings.Cut(rest, "\n---")
		if closed {
			for _, line := range strings.Split(fm, "\n") {
				if v, ok := strings.CutPrefix(line, "title:"); ok {
					return strings.Trim(strings.TrimSpace(v), `"'`)
				}
			}
		}
	}
	for i, line := range strings.SplitN(md, "\n", 64) {
		if i == 63 {
			break
		}
		if h, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
}
