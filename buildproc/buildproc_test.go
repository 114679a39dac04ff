package buildproc_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/buildproc"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
)

// TestMain makes this test binary the child of Child builds: run with
// the arguments "internal-build --memory N", it serves one request.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "internal-build" {
		fs := flag.NewFlagSet("internal-build", flag.ExitOnError)
		memory := fs.Int64("memory", 0, "")
		fs.Parse(os.Args[2:])
		if err := buildproc.Serve(context.Background(), *memory, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(t *testing.T, memory int64, timeout time.Duration) *buildproc.Child {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &buildproc.Child{Exe: exe, Args: []string{"internal-build"}, Memory: memory, Timeout: timeout}
}

// site writes files into a new folder and returns it.
func site(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pages(n int) map[string]string {
	files := map[string]string{}
	var nav []string
	for i := range n {
		files[fmt.Sprintf("p%02d.mdx", i)] = fmt.Sprintf("---\ntitle: Page %d\n---\nText %d.\n", i, i)
		nav = append(nav, fmt.Sprintf("%q", fmt.Sprintf("p%02d", i)))
	}
	files["docs.json"] = `{"name": "T", "navigation": {"pages": [` + strings.Join(nav, ",") + `]}}`
	return files
}

func TestChildBuilds(t *testing.T) {
	t.Parallel()
	files := pages(5)
	files["widget.js"] = "console.log('custom')"
	src, out := site(t, files), filepath.Join(t.TempDir(), "out")
	var seen [][2]int
	feats := features.Default()
	res, err := child(t, 0, time.Minute).Build(context.Background(), buildproc.Request{Src: src, Out: out,
		Options: render.Options{Features: &feats, BasePath: "/docs", CustomScripts: true}}, func(d, n int) { seen = append(seen, [2]int{d, n}) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages != 5 || res.Files == 0 {
		t.Fatalf("result %+v", res)
	}
	// Progress crosses at the start, the end, and at most every 50 ms
	// between: in order, never going back.
	if len(seen) < 2 || seen[0] != [2]int{0, 5} || seen[len(seen)-1] != [2]int{5, 5} {
		t.Errorf("progress %v, want from 0 to 5 of 5", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i][0] < seen[i-1][0] {
			t.Errorf("progress %v goes back", seen)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, "p03.html"))
	if err != nil || !strings.Contains(string(page), "Text 3.") || !strings.Contains(string(page), `/docs/`) {
		t.Fatalf("page: %v %.300s", err, page)
	}
	// Every option crosses to the child: the custom scripts are loaded.
	if !strings.Contains(string(page), "_lectern/custom/widget.js") {
		t.Errorf("the page does not load the custom script: %.2000s", page)
	}
}

func TestChildLimits(t *testing.T) {
	t.Parallel()
	// A limit of the render comes back as the same limits.Error.
	src := site(t, pages(5))
	_, err := child(t, 0, time.Minute).Build(context.Background(), buildproc.Request{Src: src, Out: filepath.Join(t.TempDir(), "o"),
		Options: render.Options{Limits: limits.Limits{MaxPages: 3}}}, nil)
	if le := limits.AsError(err); le == nil || le.Limit != limits.MaxPages || le.File != "docs.json" || lectern.ErrorCode(err) != lectern.EINVALID {
		t.Fatalf("err = %v, want the max-pages limit of docs.json", err)
	}
	// A render that needs more memory than the child may have.
	bomb := map[string]string{"docs.json": `{"name": "B", "navigation": {"pages": ["index"]}}`,
		"index.mdx": "---\ntitle: B\nopenapi: GET /b\n---\n", "openapi.yaml": yamlBomb()}
	_, err = child(t, 128<<20, time.Minute).Build(context.Background(), buildproc.Request{Src: site(t, bomb), Out: filepath.Join(t.TempDir(), "o"),
		Options: render.Options{Limits: limits.Limits{MaxYAMLValues: -1}}}, nil)
	if le := limits.AsError(err); le == nil || le.Limit != buildproc.LimitMemory || !strings.Contains(err.Error(), "128 MiB") {
		t.Fatalf("err = %v, want the memory limit", err)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	src := site(t, pages(20))
	slow := buildproc.Request{Src: src, PageDelay: 100 * time.Millisecond}
	for _, b := range []buildproc.Builder{buildproc.Local{Timeout: 300 * time.Millisecond}, child(t, 0, 300*time.Millisecond)} {
		slow.Out = filepath.Join(t.TempDir(), "o")
		start := time.Now()
		_, err := b.Build(context.Background(), slow, nil)
		if le := limits.AsError(err); le == nil || le.Limit != buildproc.LimitTimeout {
			t.Errorf("%T: err = %v, want the timeout limit", b, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%T: stopped after %s", b, took)
		}
		// Cancelling the job ends the render with ctx's error.
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		slow.Out = filepath.Join(t.TempDir(), "o")
		if _, err := b.Build(ctx, slow, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%T: cancelled build returned %v", b, err)
		}
	}
}

func yamlBomb() string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\ninfo: {title: B, version: '1'}\nx-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x-a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	b.WriteString("paths:\n  /b:\n    get:\n      x-b: *a9\n      responses: {'200': {description: ok}}\n")
	return b.String()
}

// TestWarningsBounded: a render that warns without end reports at most
// MaxWarnings of them, and how many more there were.
func TestWarningsBounded(t *testing.T) {
	t.Parallel()
	files := pages(40) // the renderer keeps some 50 warnings a file
	for name := range files {
		if strings.HasSuffix(name, ".mdx") {
			files[name] = "---\ntitle: W\n---\n" + strings.Repeat("<Unknown />\n\n", 60)
		}
	}
	res, err := child(t, 0, time.Minute).Build(context.Background(), buildproc.Request{Src: site(t, files), Out: filepath.Join(t.TempDir(), "o")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != buildproc.MaxWarnings || res.WarningCount() < buildproc.MaxWarnings+50 {
		t.Fatalf("%d warnings kept, %d in all; want %d kept of at least %d", len(res.Warnings), res.WarningCount(), buildproc.MaxWarnings, buildproc.MaxWarnings+50)
	}
}
