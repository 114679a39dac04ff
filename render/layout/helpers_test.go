package layout

import (
	"os"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/page"
)

// testTheme lays out the live form of the site of archive, whose
// configuration is a docs.json and whose pages are .mdx files, as the
// build does: the pages in navigation order, then Prewarm.
func testTheme(t *testing.T, archive string, split Split) *Theme {
	t.Helper()
	fsys := sitetest.Archive(t, archive)
	w := &diag.Warner{}
	cfg, err := config.Load(fsys, w, 1<<20)
	if err != nil || cfg == nil {
		t.Fatalf("config.Load: %v", err)
	}
	s := &Site{Config: cfg, Warner: w, Pages: map[string]*page.Page{}, Entries: map[string]config.NavEntry{}, Split: split}
	files := map[string]bool{}
	for name := range fsys {
		files[name] = true
	}
	s.Links = &links.Resolver{HasPage: func(p string) bool { return s.Pages[p] != nil }, Files: files,
		Redirects: config.NewRedirectTable(nil)}
	for _, e := range cfg.Nav.Pages() {
		if s.Pages[e.Page] != nil {
			continue
		}
		file := e.Page + ".mdx"
		f := fsys[file]
		if f == nil {
			t.Fatalf("no %s in the archive", file)
		}
		p := page.Load(e.Page, file, string(f.Data), w)
		s.Pages[e.Page], s.Entries[e.Page] = p, e
		s.Order = append(s.Order, p)
	}
	th := New(s)
	th.Prewarm(false)
	return th
}

// readArchive reads one of render's test archives.
func readArchive(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
