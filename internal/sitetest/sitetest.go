// Package sitetest holds what the renderer's tests share across its
// packages: sites written as one archive of files, the body of a rendered
// page, the files of a folder, where two golden texts differ, and the
// golden-file check (Golden). Only tests import it.
package sitetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// Archive reads a site written as one text: each file starts after a
// line "-- name --" (name a slash path) and runs to the next such line.
// Text before the first file is ignored. A name that is not a valid path
// fails t.
func Archive(t testing.TB, archive string) fstest.MapFS {
	t.Helper()
	fsys, err := parseArchive(archive)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

func parseArchive(archive string) (fstest.MapFS, error) {
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
				return nil, fmt.Errorf("bad file name %q in archive", name)
			}
			continue
		}
		if name != "" {
			body.WriteString(line)
		}
	}
	flush()
	return fsys, nil
}

// Content returns the rendered body of a page file: the article's
// content without the pager. A page without one fails t.
func Content(t testing.TB, page string) string {
	t.Helper()
	start := strings.Index(page, `<div class="lc-content`)
	end := strings.Index(page, `</article>`)
	open := strings.IndexByte(page[max(start, 0):], '>')
	if start < 0 || open < 0 || end < start+open {
		t.Fatalf("no content in page:\n%s", page)
	}
	body := page[start+open+1 : end]
	if i := strings.Index(body, `<nav class="lc-pager"`); i >= 0 {
		body = body[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "</div>"))
}

// ReadDir returns every file under dir, by slash-separated relative path.
func ReadDir(t testing.TB, dir string) map[string][]byte {
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

// FirstDiff describes the first line where want and got differ.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs)"
}

// Golden compares got, the output for name, with the golden file path;
// with update, it writes got there instead. A difference or a missing
// file fails t and says how to refresh the file.
func Golden(t testing.TB, path, name, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run with -update to create it)", err)
		return
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update if intended):\n%s", name, path, FirstDiff(string(want), got))
	}
}
