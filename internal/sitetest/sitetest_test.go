package sitetest

import "testing"

func TestArchive(t *testing.T) {
	fsys := Archive(t, "ignored\n-- docs.json --\n{}\n-- a/b.mdx --\n# B\n\n-- --\nkept\n")
	if got := string(fsys["docs.json"].Data); got != "{}\n" {
		t.Errorf("docs.json = %q", got)
	}
	// "-- --" is too short to name a file: it is content.
	if got := string(fsys["a/b.mdx"].Data); got != "# B\n\n-- --\nkept\n" {
		t.Errorf("a/b.mdx = %q", got)
	}
	if len(fsys) != 2 {
		t.Errorf("%d files, want 2", len(fsys))
	}
	if _, err := parseArchive("-- ../x --\n"); err == nil {
		t.Error("a name leaving the tree is accepted")
	}
}

func TestContentAndFirstDiff(t *testing.T) {
	page := `<article><div class="lc-content"> <p>x</p> <nav class="lc-pager">p</nav></div></article>`
	if body := Content(t, page); body != "<p>x</p>" {
		t.Errorf("Content = %q", body)
	}
	if d := FirstDiff("a\nb\n", "a\nc\n"); d != "line 2:\n  want: b\n  got:  c" {
		t.Errorf("FirstDiff = %q", d)
	}
}
