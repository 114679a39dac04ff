package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/render/features"
)

func TestBuildCommand(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "site")
	run := func(args ...string) (string, string, error) {
		var o, e bytes.Buffer
		err := cli.Run(context.Background(), args, noEnv, strings.NewReader(""), &o, &e)
		return o.String(), e.String(), err
	}
	stdout, stderr, err := run("build", "--out", out, "--export", "../../shared/corpus/mintlify-starter")
	if err != nil {
		t.Fatalf("build: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "Built 18 pages") || !strings.Contains(stdout, "export form") {
		t.Fatalf("summary: %q", stdout)
	}
	if !strings.Contains(stderr, "warning: essentials/") {
		t.Fatalf("warnings not listed with file names: %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "quickstart.html")); err != nil {
		t.Fatal("quickstart.html missing")
	}

	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "docs.json"), []byte(`{"name": "x", "navigation": [`), 0o644)
	_, _, err = run("build", "--out", out, broken)
	if err == nil || cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "docs.json") {
		t.Fatalf("broken config: %v (exit %d)", err, cli.ExitCode(err))
	}
	if _, err := os.Stat(filepath.Join(out, "quickstart.html")); err != nil {
		t.Fatal("a failed build removed the previous output")
	}
	if _, _, err := run("build", "--out", out, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing source accepted")
	}
}

// TestBuildCacheKeepsSite rebuilds the starter corpus (it has API pages
// with a playground) from the cache and checks the output is the same,
// file for file and byte for byte, with every page reused and the folder
// updated in place; a failed build with the cache leaves it as it was.
func TestBuildCacheKeepsSite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, cache := filepath.Join(dir, "site"), filepath.Join(dir, "cache")
	build := func() string {
		var o, e bytes.Buffer
		if err := cli.Run(context.Background(), []string{"build", "--cache-dir", cache, "--out", out, "../../shared/corpus/mintlify-starter"},
			noEnv, strings.NewReader(""), &o, &e); err != nil {
			t.Fatalf("build: %v\n%s", err, e.String())
		}
		return o.String()
	}
	quickstart := func() os.FileInfo {
		fi, err := os.Stat(filepath.Join(out, "quickstart.html"))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	snapshot := func() map[string]string {
		files := map[string]string{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(out, p)
				files[rel] = string(b)
			}
			return nil
		})
		return files
	}
	build()
	first, page := snapshot(), quickstart()
	if summary := build(); !strings.Contains(summary, "18 unchanged") {
		t.Fatalf("rebuild did not reuse the pages: %q", summary)
	}
	second := snapshot()
	if now := quickstart(); !os.SameFile(page, now) || !now.ModTime().Equal(page.ModTime()) {
		t.Error("the rebuild replaced an unchanged page rather than updating the folder in place")
	}
	if len(first) != len(second) {
		t.Fatalf("rebuild has %d files, first build %d", len(second), len(first))
	}
	for name, content := range first {
		if second[name] != content {
			t.Errorf("%s differs after a cached rebuild", name)
		}
	}
	playground := false // under its name with its hash
	for name := range second {
		playground = playground || features.HashedAsset(filepath.ToSlash(name)) && features.AssetBase(filepath.ToSlash(name)) == features.PlaygroundJSFile
	}
	if !playground {
		t.Error("playground.js missing after a cached rebuild")
	}

	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "docs.json"), []byte(`{"name": "x", "navigation": [`), 0o644)
	var o, e bytes.Buffer
	err := cli.Run(context.Background(), []string{"build", "--cache-dir", cache, "--out", out, broken}, noEnv, strings.NewReader(""), &o, &e)
	if err == nil || cli.ExitCode(err) != 1 {
		t.Fatalf("broken config with a cache: %v (exit %d)", err, cli.ExitCode(err))
	}
	third := snapshot()
	if len(third) != len(first) {
		t.Fatalf("after a failed build: %d files, before %d", len(third), len(first))
	}
	for name, content := range first {
		if third[name] != content {
			t.Errorf("%s changed by a failed build", name)
		}
	}
	if summary := build(); !strings.Contains(summary, "18 unchanged") {
		t.Fatalf("the build after a failed one did not reuse the pages: %q", summary)
	}
}

// TestBuildFoldersAroundSource builds with the output and the cache inside
// the source folder (as in "lectern build --out site ." at a repository's
// root): they are not read back as files of the site, so the second build
// is the same as the first. An output folder that contains the source, or
// a cache that overlaps the output, is refused before anything is written,
// and the source is left whole.
func TestBuildFoldersAroundSource(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "docs")
	os.MkdirAll(filepath.Join(src, "guides"), 0o755)
	os.WriteFile(filepath.Join(src, "docs.json"), []byte(`{"name": "Acme", "navigation": {"pages": ["index", "guides/start"]}}`), 0o644)
	os.WriteFile(filepath.Join(src, "index.mdx"), []byte("---\ntitle: Home\n---\nHello.\n"), 0o644)
	os.WriteFile(filepath.Join(src, "guides", "start.mdx"), []byte("---\ntitle: Start\n---\nStart here.\n"), 0o644)
	run := func(args ...string) (string, error) {
		var o, e bytes.Buffer
		err := cli.Run(context.Background(), append([]string{"build"}, args...), noEnv, strings.NewReader(""), &o, &e)
		return o.String() + e.String(), err
	}
	files := func(dir string) []string {
		var names []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				if strings.HasPrefix(filepath.ToSlash(rel), "_lectern/search/c/") {
					rel = "a chunk of the search index" // named by its content
				}
				names = append(names, rel)
			}
			return nil
		})
		return names
	}
	for _, cache := range []string{"", filepath.Join(src, ".cache"), filepath.Join(src, "build-cache")} {
		out := filepath.Join(src, "site")
		os.RemoveAll(out)
		args := []string{"--out", out, src}
		if cache != "" {
			args = append([]string{"--cache-dir", cache}, args...)
		}
		if logs, err := run(args...); err != nil {
			t.Fatalf("cache %q: %v\n%s", cache, err, logs)
		}
		first := files(out)
		// A change, so that the cached build renders again.
		os.WriteFile(filepath.Join(src, "index.mdx"), []byte("---\ntitle: Home\n---\nHello again.\n"), 0o644)
		if logs, err := run(args...); err != nil {
			t.Fatalf("cache %q, second build: %v\n%s", cache, err, logs)
		}
		second := files(out)
		if strings.Join(first, "\n") != strings.Join(second, "\n") {
			t.Fatalf("cache %q: the second build differs from the first:\n%q\n%q", cache, first, second)
		}
		for _, name := range second {
			if strings.HasPrefix(name, "site"+string(filepath.Separator)) || strings.HasPrefix(name, "build-cache") {
				t.Fatalf("cache %q: %s copied into the output", cache, name)
			}
		}
	}

	// Refused, with the source untouched.
	parent := filepath.Dir(src)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", parent, src}, "contains the source"},
		{[]string{"--out", src, src}, "must not be the source"},
		{[]string{"--out", filepath.Join(parent, "site"), "--cache-dir", filepath.Join(parent, "site", "cache"), src}, "overlap"},
		{[]string{"--out", filepath.Join(parent, "site", "out"), "--cache-dir", filepath.Join(parent, "site"), src}, "overlap"},
		{[]string{"--out", filepath.Join(parent, "site"), "--cache-dir", src, src}, "must not be the source"},
	} {
		logs, err := run(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%q: got %v, want an error with %q\n%s", c.args, err, c.want, logs)
		}
		if _, err := os.Stat(filepath.Join(src, "guides", "start.mdx")); err != nil {
			t.Fatalf("%q: the source was touched: %v", c.args, err)
		}
	}
}

// TestBuildOutputOwnership: a build replaces its output folder whole, so
// it refuses one it did not make (a folder with other files, a file), and
// leaves it as it was; it builds into a new or empty folder, marks it,
// makes it readable by others (a web server), replaces it at the next
// build, and builds through a symbolic link into the folder it names.
func TestBuildOutputOwnership(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "docs.json"), []byte(`{"name": "Acme", "navigation": {"pages": ["index"]}}`), 0o644)
	os.WriteFile(filepath.Join(src, "index.mdx"), []byte("# Hello\n"), 0o644)
	run := func(args ...string) error {
		var o, e bytes.Buffer
		return cli.Run(context.Background(), append([]string{"build"}, args...), noEnv, strings.NewReader(""), &o, &e)
	}
	dir := t.TempDir()

	// Someone's folder: refused, kept.
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, "projects"), 0o755)
	os.WriteFile(filepath.Join(home, "thesis.txt"), []byte("precious"), 0o644)
	for _, cache := range []string{"", filepath.Join(dir, "cache-home")} {
		args := []string{"--out", home, src}
		if cache != "" {
			args = append([]string{"--cache-dir", cache}, args...)
		}
		if err := run(args...); err == nil || !strings.Contains(err.Error(), "did not make") || !strings.Contains(err.Error(), "thesis.txt") {
			t.Fatalf("a folder of other files: %v", err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(home, "thesis.txt")); err != nil || string(data) != "precious" {
		t.Fatalf("the folder was touched: %v", err)
	}
	// A file: refused, kept.
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("notes"), 0o644)
	if err := run("--out", notes, src); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("a file: %v", err)
	}
	if data, _ := os.ReadFile(notes); string(data) != "notes" {
		t.Fatal("the file was touched")
	}

	// An empty folder: built, marked, readable; built again.
	site := filepath.Join(dir, "site")
	os.Mkdir(site, 0o755)
	for i := 0; i < 2; i++ {
		if err := run("--cache-dir", filepath.Join(dir, "cache"), "--out", site, src); err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
	}
	if _, err := os.Stat(filepath.Join(site, ".lectern-output")); err != nil {
		t.Fatal("output not marked")
	}
	if fi, err := os.Stat(site); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("output folder mode: %v %v", fi.Mode(), err)
	}
	// Emptied by hand and made again: a new folder, built whole.
	os.RemoveAll(site)
	os.Mkdir(site, 0o755)
	if err := run("--cache-dir", filepath.Join(dir, "cache"), "--out", site, src); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Fatal(err)
	}

	// Through a link: the folder it names is the output, the link stays.
	www := filepath.Join(dir, "www")
	os.Mkdir(www, 0o755)
	link := filepath.Join(dir, "public")
	os.Symlink(www, link)
	for i := 0; i < 2; i++ {
		if err := run("--out", link, src); err != nil {
			t.Fatalf("through a link, build %d: %v", i, err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if _, err := os.Stat(filepath.Join(www, "index.html")); err != nil {
		t.Fatal("not built into the linked folder")
	}
}

// TestBuildInterrupted: a build whose context ends (Ctrl-C) exits 130,
// saying so, and makes no output.
func TestBuildInterrupted(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "site")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := cli.Run(ctx, []string{"build", "--out", out, "../../shared/corpus/mintlify-starter"}, noEnv, strings.NewReader(""), &o, &e)
	if cli.ExitCode(err) != 130 || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("got %v (exit %d)", err, cli.ExitCode(err))
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("an interrupted build made its output")
	}
}
