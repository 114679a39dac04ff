// Package sitebuild renders docs sites for the tests of the packages that
// serve them (sites, httpapi, selfhost): a site's files by path, and the
// small two-page site their assistant tests ask about.
package sitebuild

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/output"
)

// Small is a two-page site: "Welcome", and "Deploying", whose section
// "Rolling back" says how to roll back a release.
var Small = fstest.MapFS{
	"docs.json":  {Data: []byte(`{"name":"Acme","navigation":{"groups":[{"group":"Guides","pages":["index","deploy"]}]}}`)},
	"index.mdx":  {Data: []byte("---\ntitle: Welcome\n---\n\nAcme runs your jobs.\n")},
	"deploy.mdx": {Data: []byte("---\ntitle: Deploying\n---\n\n## Rolling back\n\nTo roll back a release, run acme rollback with the release number.\n")},
}

// Files renders src with opts and returns the site's files by slash path.
func Files(t testing.TB, src fs.FS, opts render.Options) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if _, err := render.Build(context.Background(), src, output.Dir{Dir: dir}, opts); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for name, data := range sitetest.ReadDir(t, dir) {
		files[name] = string(data)
	}
	return files
}
