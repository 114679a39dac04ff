package render

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
)

// inputBound is how long a build of a small damaged source may take: the
// point is that it ends (no cycle is followed forever), not its speed.
const inputBound = 20 * time.Second

// buildWithin runs Build on src and fails the test when it does not return
// within inputBound or panics. It returns what Build returned.
func buildWithin(t *testing.T, src fs.FS) (*Result, *memOutput, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), inputBound)
	defer cancel()
	type outcome struct {
		res      *Result
		err      error
		panicked any
	}
	out := newMemOutput()
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panicked = recover()
			done <- o
		}()
		o.res, o.err = Build(ctx, src, out, Options{})
	}()
	select {
	case o := <-done:
		if o.panicked != nil {
			t.Fatalf("Build panicked: %v", o.panicked)
		}
		if o.res != nil {
			for _, w := range o.res.Warnings {
				if strings.Contains(w.Message, internalErrorWarning) {
					t.Fatalf("the renderer panicked: %s", w)
				}
			}
		}
		return o.res, out, o.err
	case <-ctx.Done():
		t.Fatalf("Build did not return within %v", inputBound)
		return nil, nil, nil
	}
}

// hasWarning reports whether a warning of file contains all of parts.
func hasWarning(ws []diag.Warning, file string, parts ...string) bool {
	for _, w := range ws {
		if w.File != file {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w.Message, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestNavListsConfig checks a navigation that names the configuration
// itself as a page: the build stops at once with an EINVALID error naming
// the entry and docs.json.
func TestNavListsConfig(t *testing.T) {
	t.Parallel()
	for _, entry := range []string{"docs.json", "docs", "/docs.json", "./docs", "mint.json"} {
		t.Run(entry, func(t *testing.T) {
			t.Parallel()
			archive := `
-- docs.json --
{"navigation": {"groups": [{"group": "G", "pages": ["index", "` + entry + `"]}]}}
-- index.mdx --
Hi
-- mint.json --
{"navigation": [{"group": "G", "pages": ["index"]}]}
`
			_, _, err := buildWithin(t, sitetest.Archive(t, archive))
			if err == nil {
				t.Fatal("no error")
			}
			if code := lectern.ErrorCode(err); code != lectern.EINVALID {
				t.Errorf("code = %q, want %q (%v)", code, lectern.EINVALID, err)
			}
			page := config.CleanPagePath(entry)
			if !strings.HasPrefix(err.Error(), "docs.json: ") || !strings.Contains(err.Error(), `"`+page+`" not found`) {
				t.Errorf("error = %q, want it to name docs.json and %q", err, page)
			}
		})
	}
}

// TestConfigRefCycle checks docs.json "$ref"s that point back at the
// configuration (directly, or through another file): Lectern does not read
// "$ref", so the build ends and says what it ignored.
func TestConfigRefCycle(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, archive string }{
		{"navigation is a ref to itself", `
-- docs.json --
{"navigation": {"$ref": "docs.json"}}
-- index.mdx --
Hi
`},
		{"group refs a file that refs back", `
-- docs.json --
{"navigation": {"groups": [{"$ref": "./nav.json"}, {"group": "G", "pages": ["index"]}]}}
-- nav.json --
{"group": "Loop", "pages": [{"$ref": "./docs.json"}]}
-- index.mdx --
Hi
`},
		{"nested pages ref", `
-- docs.json --
{"navigation": {"groups": [{"group": "G", "pages": ["index", {"$ref": "docs.json"}]}]}}
-- index.mdx --
Hi
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, out, err := buildWithin(t, sitetest.Archive(t, tt.archive))
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if !hasWarning(res.Warnings, "docs.json", `"$ref"`, "not supported") {
				t.Errorf("no warning about the ignored $ref; warnings:\n%s", warningsText(res.Warnings))
			}
			if !out.has("index.html") {
				t.Errorf("no index.html")
			}
		})
	}
}

// TestSnippetCycle checks imports and <Snippet>s that include each other:
// the build ends, warns, and shows each file's text once.
func TestSnippetCycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, archive string
		warnFile      string
		want          []string // each shown once
	}{
		{"import A → B → A", `
-- docs.json --
{"navigation": {"pages": ["index"]}}
-- index.mdx --
import A from '/snippets/a.mdx'

<A />
-- snippets/a.mdx --
import B from '/snippets/b.mdx'

A then <B />
-- snippets/b.mdx --
import A from '/snippets/a.mdx'

B then <A />
`, "snippets/b.mdx", []string{"A then", "B then"}},
		{"snippet imports itself", `
-- docs.json --
{"navigation": {"pages": ["index"]}}
-- index.mdx --
import A from '/snippets/a.mdx'

<A />
-- snippets/a.mdx --
import A from '/snippets/a.mdx'

A then <A />
`, "snippets/a.mdx", []string{"A then"}},
		{"page imports itself", `
-- docs.json --
{"navigation": {"pages": ["index"]}}
-- index.mdx --
import Me from '/index.mdx'

Me then <Me />
`, "index.mdx", []string{"Me then Me then"}}, // the page, then the page once as a component
		{"Snippet file A → B → A", `
-- docs.json --
{"navigation": {"pages": ["index"]}}
-- index.mdx --
<Snippet file="a.mdx" />
-- snippets/a.mdx --
A then <Snippet file="b.mdx" />
-- snippets/b.mdx --
B then <Snippet file="a.mdx" />
`, "snippets/b.mdx", []string{"A then", "B then"}},
		{"exported component renders itself", `
-- docs.json --
{"navigation": {"pages": ["index"]}}
-- index.mdx --
export const Loop = ({ n }) => (<div>Loop then <Loop n={n} /></div>)

<Loop n="1" />
`, "index.mdx", []string{"Loop then"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, out, err := buildWithin(t, sitetest.Archive(t, tt.archive))
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if !hasWarning(res.Warnings, tt.warnFile, "includes itself") {
				t.Errorf("no \"includes itself\" warning for %s; warnings:\n%s", tt.warnFile, warningsText(res.Warnings))
			}
			body := sitetest.Content(t, out.get(t, "index.html"))
			for _, w := range tt.want {
				if n := strings.Count(body, w); n != 1 {
					t.Errorf("%q shown %d times, want once:\n%s", w, n, body)
				}
			}
		})
	}
}

// TestMissingPages checks the error for navigation pages that do not
// exist (the single-page form is in TestBuildErrors): several missing,
// and mint.json named as the source.
func TestMissingPages(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, archive, want string }{
		{"several missing", `
-- docs.json --
{"navigation": {"pages": ["index", "a/gone", "b/gone", "c/gone"]}}
-- index.mdx --
Hi
`, `docs.json: navigation page "a/gone" not found (no a/gone.mdx or .md); 2 more navigation pages are missing`},
		{"mint.json", `
-- mint.json --
{"name": "M", "navigation": [{"group": "G", "pages": ["index", "gone"]}]}
-- index.mdx --
Hi
`, `mint.json: navigation page "gone" not found (no gone.mdx or .md)`},
		{"only a folder of that name", `
-- docs.json --
{"navigation": {"pages": ["guides"]}}
-- guides/index.mdx --
Hi
`, `docs.json: navigation page "guides" not found (no guides.mdx or .md)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := buildWithin(t, sitetest.Archive(t, tt.archive))
			if lectern.ErrorCode(err) != lectern.EINVALID {
				t.Fatalf("err = %v, want code %s", err, lectern.EINVALID)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
		})
	}
}

// symlinkSource makes a source folder whose symbolic links point outside
// it, at files holding secret, and returns the folder.
func symlinkSource(t *testing.T, secret string, nav string) string {
	t.Helper()
	outside := t.TempDir()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	for _, f := range []string{"secret.mdx", "secret.png", "spec.json"} {
		data := "---\ntitle: " + secret + "\n---\n" + secret + "\n"
		if f == "spec.json" {
			data = `{"openapi": "3.0.0", "info": {"title": "` + secret + `", "version": "1"}, "paths": {}}`
		}
		if err := os.WriteFile(filepath.Join(outside, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs.json", `{"name": "S", "logo": "/logo.png", "favicon": "/linked/secret.png",
 "navigation": {"pages": [`+nav+`]}}`)
	write("index.mdx", `import L from '/linked/secret.mdx'
import P from '/passwd.mdx'

[page](/secrets) [file](/linked/secret.mdx) [dir page](/linked/secret)

![image](/secrets.mdx) ![image in dir](/linked/secret.png)

<Snippet file="leak.mdx" />

<L />

<P />
`)
	write("snippets/real.mdx", "real\n")
	link(filepath.Join(outside, "secret.mdx"), "secrets.mdx")
	link(filepath.Join(outside, "secret.png"), "logo.png")
	link(filepath.Join(outside, "spec.json"), "api.json")
	link(filepath.Join(outside, "secret.mdx"), "snippets/leak.mdx")
	link(outside, "linked")
	link("/etc/passwd", "passwd.mdx")
	return dir
}

// TestSymlinksLeavingSource checks that symbolic links out of the source,
// opened through os.OpenRoot as the CLI and jobs do, are refused: nothing
// of the outside files reaches any output file, and every reference to
// them is a warning.
func TestSymlinksLeavingSource(t *testing.T) {
	t.Parallel()
	const secret = "LECTERN-OUTSIDE-SECRET-5d1e"
	var passwd []byte
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		if i := bytes.IndexByte(data, '\n'); i > 8 {
			passwd = data[:i]
		}
	}
	checkNoLeak := func(t *testing.T, out *memOutput) {
		t.Helper()
		for _, name := range slices.Sorted(maps.Keys(out.files)) {
			if bytes.Contains(out.files[name], []byte(secret)) {
				t.Errorf("%s has the content of a file outside the source", name)
			}
			if passwd != nil && bytes.Contains(out.files[name], passwd) {
				t.Errorf("%s has the content of /etc/passwd", name)
			}
			if strings.HasPrefix(name, "linked/") || strings.HasPrefix(name, "secrets") || name == "logo.png" ||
				name == "api.json" || strings.HasPrefix(name, "passwd") {
				t.Errorf("output has %s, a symbolic link out of the source", name)
			}
		}
	}
	open := func(t *testing.T, dir string) fs.FS {
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		return root.FS()
	}

	t.Run("referenced from a page", func(t *testing.T) {
		t.Parallel()
		res, out, err := buildWithin(t, open(t, symlinkSource(t, secret, `"index"`)))
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		checkNoLeak(t, out)
		for _, ref := range []struct {
			line int
			what string
		}{
			{1, `"/linked/secret.mdx"`}, {2, `"/passwd.mdx"`},
			{4, `"/secrets"`}, {4, `"/linked/secret.mdx"`}, {4, `"/linked/secret"`},
			{6, `"/secrets.mdx"`}, {6, `"/linked/secret.png"`},
			{8, `"leak.mdx"`},
		} {
			found := false
			for _, w := range res.Warnings {
				found = found || w.File == "index.mdx" && w.Line == ref.line && strings.Contains(w.Message, ref.what)
			}
			if !found {
				t.Errorf("no warning for %s on index.mdx:%d; warnings:\n%s", ref.what, ref.line, warningsText(res.Warnings))
			}
		}
		if !hasWarning(res.Warnings, "docs.json", "/logo.png") {
			t.Errorf("no warning for the linked logo; warnings:\n%s", warningsText(res.Warnings))
		}
		linkWarned := false
		for _, w := range res.Warnings {
			linkWarned = linkWarned || strings.Contains(w.Message, "symbolic link not followed")
		}
		if !linkWarned {
			t.Errorf("the symbolic links were skipped without a warning; warnings:\n%s", warningsText(res.Warnings))
		}
	})
	t.Run("listed in the navigation", func(t *testing.T) {
		t.Parallel()
		for _, page := range []string{"secrets", "linked/secret", "passwd"} {
			_, out, err := buildWithin(t, open(t, symlinkSource(t, secret, `"index", "`+page+`"`)))
			if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), `"`+page+`" not found`) {
				t.Errorf("%s: err = %v, want EINVALID naming the page", page, err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error shows the outside content: %v", page, err)
			}
			checkNoLeak(t, out)
		}
	})
	t.Run("the configuration is a link", func(t *testing.T) {
		t.Parallel()
		dir := symlinkSource(t, secret, `"index"`)
		outside := filepath.Join(t.TempDir(), "docs.json")
		if err := os.WriteFile(outside, []byte(`{"name": "`+secret+`", "navigation": {"pages": ["index"]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "docs.json")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "docs.json")); err != nil {
			t.Fatal(err)
		}
		_, out, err := buildWithin(t, open(t, dir))
		if err == nil {
			t.Fatalf("Build read a docs.json outside the source")
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows the outside content: %v", err)
		}
		checkNoLeak(t, out)
	})
}

// TestBinaryPage checks a binary file saved as a navigation page or a
// snippet: the build ends, warns, and writes valid UTF-8.
func TestBinaryPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		warnLine   int
		warn       string
	}{
		{"random bytes", binaryBlob(64 << 10), 1, "binary file"},
		{"NUL on line 3", "# Title\n\ntext\x00more\n", 3, "binary file"},
		{"Latin-1 text", "# Menu\n\nCaf\xe9 cr\xe8me\n", 3, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := sitetest.Archive(t, `
-- docs.json --
{"navigation": {"pages": ["index", "x"]}}
-- index.mdx --
import Y from '/snippets/y.mdx'

<Y />
`)
			fsys["x.mdx"] = &fstest.MapFile{Data: []byte(tt.data), Mode: 0o644}
			fsys["snippets/y.mdx"] = &fstest.MapFile{Data: []byte(tt.data), Mode: 0o644}
			res, out, err := buildWithin(t, fsys)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			for _, file := range []string{"x.mdx", "snippets/y.mdx"} {
				found := false
				for _, w := range res.Warnings {
					found = found || w.File == file && w.Line == tt.warnLine && strings.Contains(w.Message, tt.warn)
				}
				if !found {
					t.Errorf("no %q warning for %s:%d; warnings:\n%s", tt.warn, file, tt.warnLine, firstBytes(warningsText(res.Warnings), 2000))
				}
			}
			for _, name := range []string{"x.html", "index.html"} {
				if data := out.get(t, name); !utf8.ValidString(data) {
					t.Errorf("%s is not valid UTF-8", name)
				}
			}
			for _, d := range searchDocs(t, out) {
				if !utf8.ValidString(d.Title) || len(d.Sections) > 0 && !utf8.ValidString(d.Sections[0].Text) {
					t.Errorf("search index page %s is not valid UTF-8", d.Path)
				}
			}
			if tt.name == "Latin-1 text" && !strings.Contains(out.get(t, "x.html"), "Caf\uFFFD cr\uFFFDme") {
				t.Errorf("x.html lacks the text with U+FFFD:\n%s", sitetest.Content(t, out.get(t, "x.html")))
			}
		})
	}
}

// TestLongLine checks pages made of one line of 300 KB: plain text with
// Markdown, the same inside a component, and one word without a space.
func TestLongLine(t *testing.T) {
	t.Parallel()
	const size = 300 << 10
	unit := "word **bold** [link](/index) `code` "
	n := size / len(unit)
	markdown := strings.Repeat(unit, n)
	tests := []struct {
		name, src string
		check     func(t *testing.T, body string)
	}{
		{"markdown", markdown, func(t *testing.T, body string) {
			if got := strings.Count(body, "<strong>bold</strong>"); got != n {
				t.Errorf("%d bold words, want %d", got, n)
			}
			if got := strings.Count(body, `<code>code</code>`); got != n {
				t.Errorf("%d code spans, want %d", got, n)
			}
		}},
		{"in a Note", "<Note>" + markdown + "</Note>", func(t *testing.T, body string) {
			if !strings.HasPrefix(body, `<aside class="lc-callout lc-note"`) {
				t.Errorf("no callout: %s", firstBytes(body, 200))
			}
			if got := strings.Count(body, "<strong>bold</strong>"); got != n {
				t.Errorf("%d bold words, want %d", got, n)
			}
		}},
		{"one word", strings.Repeat("abcdefgh", size/8), func(t *testing.T, body string) {
			if !strings.Contains(body, strings.Repeat("abcdefgh", size/8)) {
				t.Errorf("the word is not shown whole")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if len(tt.src) < size-len(unit) || strings.Contains(tt.src, "\n") {
				t.Fatalf("source is %d bytes", len(tt.src))
			}
			start := time.Now()
			res, out, err := buildWithin(t, fuzzSite("index.mdx", tt.src))
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			t.Logf("%d bytes on one line: %v", len(tt.src), time.Since(start))
			if len(res.Warnings) > 0 {
				t.Errorf("warnings:\n%s", warningsText(res.Warnings))
			}
			tt.check(t, sitetest.Content(t, out.get(t, "index.html")))
		})
	}
}
