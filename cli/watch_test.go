package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// lineFeed is an io.Writer that hands each complete line to a channel.
type lineFeed struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func newLineFeed() *lineFeed { return &lineFeed{lines: make(chan string, 1000)} }

func (l *lineFeed) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line) // incomplete: kept for the next write
			return len(p), nil
		}
		l.lines <- strings.TrimSuffix(line, "\n")
	}
}

// next returns the next line that contains want, failing the test when
// none comes within the timeout.
func (l *lineFeed) next(t *testing.T, want string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line := <-l.lines:
			if strings.Contains(line, want) {
				return line
			}
		case <-timeout:
			t.Fatalf("no line with %q", want)
		}
	}
}

// quiet fails the test when a line with want comes within d.
func (l *lineFeed) quiet(t *testing.T, want string, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case line := <-l.lines:
			if strings.Contains(line, want) {
				t.Fatalf("unexpected: %s", line)
			}
		case <-timeout:
			return
		}
	}
}

// startCLI runs lectern with args in the background. stop ends it (its
// context) and returns its error; the test fails when it does not end.
func startCLI(t *testing.T, args ...string) (stdout, stderr *lineFeed, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = newLineFeed(), newLineFeed()
	done := make(chan error, 1)
	go func() { done <- cli.Run(ctx, args, noEnv, strings.NewReader(""), stdout, stderr) }()
	var err error
	var once sync.Once
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Error("lectern did not end with its context")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stdout, stderr, stop
}

// TestBuildWatch runs lectern build --watch on a source whose output lies
// inside it, and changes the source under it: an edited page, a new
// folder with a page the navigation then names, a broken docs.json (a
// failed rebuild that keeps the output and keeps watching) and its fix.
// Changes to dot-files, and the build's own writes, rebuild nothing. The
// command ends, without error, when its context does.
func TestBuildWatch(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		data, _ := os.ReadFile(filepath.Join(src, "site", filepath.FromSlash(name)))
		return string(data)
	}
	write("docs.json", `{"name": "Acme", "navigation": {"pages": ["index"]}}`)
	write("index.mdx", "---\ntitle: Home\n---\nFirst words.\n")

	stdout, stderr, stop := startCLI(t, "build", "--watch", "--out", filepath.Join(src, "site"), src)
	stdout.next(t, "Built 1 pages")
	stdout.next(t, "Watching")
	if !strings.Contains(read("index.html"), "First words.") {
		t.Fatal("first build: index.html without its text")
	}

	write("index.mdx", "---\ntitle: Home\n---\nSecond words.\n")
	if line := stdout.next(t, "Rebuilt"); !strings.Contains(line, "after a change to index.mdx.") {
		t.Fatalf("rebuild line: %s", line)
	}
	if !strings.Contains(read("index.html"), "Second words.") {
		t.Fatal("index.html not rebuilt")
	}
	// The rebuild wrote into site/, inside the source: no rebuild for that.
	stdout.quiet(t, "Rebuilt", 300*time.Millisecond)

	// A new folder, then the navigation that names its page.
	write("guides/start.mdx", "---\ntitle: Start\n---\nStart here.\n")
	stdout.next(t, "Rebuilt")
	write("docs.json", `{"name": "Acme", "navigation": {"pages": ["index", "guides/start"]}}`)
	for !strings.Contains(read("guides/start.html"), "Start here.") {
		stdout.next(t, "Rebuilt")
	}

	// A broken docs.json: the rebuild fails, says why, keeps the site.
	write("docs.json", `{"name": "Acme", "navigation": [`)
	if line := stderr.next(t, "build failed"); !strings.Contains(line, "docs.json") {
		t.Fatalf("failed rebuild: %s", line)
	}
	if !strings.Contains(read("guides/start.html"), "Start here.") {
		t.Fatal("a failed rebuild changed the output")
	}
	write("docs.json", `{"name": "Acme Docs", "navigation": {"pages": ["index", "guides/start"]}}`)
	stdout.next(t, "Rebuilt 2 pages")
	if !strings.Contains(read("index.html"), "Acme Docs") {
		t.Fatal("fixed docs.json not rebuilt")
	}

	// A folder renamed (the watch of the old name must not be kept), and
	// a folder made under a new name and renamed, as a file manager
	// does: pages in both are still watched.
	if err := os.Rename(filepath.Join(src, "guides"), filepath.Join(src, "tutorials")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(src, "Untitled folder"), 0o755)
	if err := os.Rename(filepath.Join(src, "Untitled folder"), filepath.Join(src, "reference")); err != nil {
		t.Fatal(err)
	}
	write("reference/api.mdx", "---\ntitle: API\n---\nThe API.\n")
	write("docs.json", `{"name": "Acme Docs", "navigation": {"pages": ["index", "tutorials/start", "reference/api"]}}`)
	for !strings.Contains(read("reference/api.html"), "The API.") {
		stdout.next(t, "Rebuilt")
	}
	time.Sleep(50 * time.Millisecond) // the move's last events
	write("tutorials/start.mdx", "---\ntitle: Start\n---\nStart in the new place.\n")
	// A late event of the move may give one more rebuild first.
	for i := 0; ; i++ {
		line := stdout.next(t, "Rebuilt")
		if strings.Contains(line, "tutorials/start.mdx") {
			break
		}
		if i == 2 || !strings.Contains(line, "docs.json") && !strings.Contains(line, "reference") {
			t.Fatalf("rebuild line: %s", line)
		}
	}
	if !strings.Contains(read("tutorials/start.html"), "Start in the new place.") {
		t.Fatal("a page of a renamed folder was not rebuilt")
	}
	write("reference/api.mdx", "---\ntitle: API\n---\nThe whole API.\n")
	// A late event of the moves may give a rebuild first (seen under load).
	for i := 0; ; i++ {
		line := stdout.next(t, "Rebuilt")
		if strings.Contains(line, "reference/api.mdx") {
			break
		}
		if i == 2 {
			t.Fatalf("rebuild line: %s", line)
		}
	}
	if !strings.Contains(read("reference/api.html"), "The whole API.") {
		t.Fatal("a page of a folder made and renamed was not rebuilt")
	}
	// Saved through a temporary file: the line names the page.
	write("index.mdx.tmp", "---\ntitle: Home\n---\nThird words.\n")
	os.Rename(filepath.Join(src, "index.mdx.tmp"), filepath.Join(src, "index.mdx"))
	if line := stdout.next(t, "Rebuilt"); !strings.Contains(line, "changes to index.mdx") && !strings.Contains(line, "change to index.mdx") {
		t.Fatalf("rebuild line: %s", line)
	}

	// Editor files that start with a dot are not part of the site.
	write(".index.mdx.swp", "swap")
	write("tutorials/.start.mdx~", "backup")
	stdout.quiet(t, "Rebuilt", 300*time.Millisecond)

	if err := stop(); err != nil {
		t.Fatalf("watch ended with %v", err)
	}
}

// TestBuildWatchStartsBroken starts watching a source whose first build
// fails: the command keeps watching, and builds once the source is fixed.
// The source is named through a symbolic link, which the build follows,
// and so must the watch.
func TestBuildWatchStartsBroken(t *testing.T) {
	t.Parallel()
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "site")
	os.WriteFile(filepath.Join(src, "docs.json"), []byte(`{"name": `), 0o644)
	os.WriteFile(filepath.Join(src, "index.mdx"), []byte("# Hello\n"), 0o644)
	link := filepath.Join(t.TempDir(), "docs")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, stop := startCLI(t, "build", "--watch", "--out", out, link)
	stderr.next(t, "build failed")
	stdout.next(t, "Watching")
	os.WriteFile(filepath.Join(src, "docs.json"), []byte(`{"name": "Acme", "navigation": {"pages": ["index"]}}`), 0o644)
	stdout.next(t, "Rebuilt 1 pages")
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
