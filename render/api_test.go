package render

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/internal/sitetest"
)

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, archive, wantPrefix string
	}{
		{"missing nav page", `
-- docs.json --
{"navigation": {"groups": [{"group": "G", "pages": ["index", "guides/missing"]}]}}
-- index.mdx --
Hi
`, `docs.json: navigation page "guides/missing" not found (no guides/missing.mdx or .md)`},
		{"invalid JSON", "-- docs.json --\n{\n  \"name\": \"x\",\n  \"navigation\": {,}\n}\n-- index.mdx --\nHi\n",
			"docs.json: invalid JSON at line 3: "},
		{"invalid mint.json", "-- mint.json --\n{\"name\": \"x\",\n\"tabs\": [}\n-- index.mdx --\nHi\n", "mint.json: invalid JSON at line 2: "},
		{"not an object", "-- docs.json --\n[1, 2]\n", "docs.json: the top level must be a JSON object"},
		{"no config no pages", "-- images/a.png --\nPNG\n", "no docs.json, mint.json or .mdx/.md page found"},
		{"empty source", "", "no docs.json, mint.json or .mdx/.md page found"},
		{"escaping nav page", `
-- docs.json --
{"navigation": {"pages": ["../etc/passwd"]}}
`, `docs.json: navigation page "../etc/passwd" is not a valid path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Build(context.Background(), sitetest.Archive(t, tt.archive), newMemOutput(), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if code := lectern.ErrorCode(err); code != lectern.EINVALID {
				t.Errorf("code = %q, want %q (%v)", code, lectern.EINVALID, err)
			}
			if !strings.HasPrefix(err.Error(), tt.wantPrefix) {
				t.Errorf("error = %q, want prefix %q", err, tt.wantPrefix)
			}
		})
	}
}

func TestBuildBadOptions(t *testing.T) {
	t.Parallel()
	fsys := sitetest.Archive(t, "-- index.mdx --\nHi\n")
	if _, err := Build(context.Background(), fsys, newMemOutput(), Options{BasePath: "/a/../b"}); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Errorf("bad base path: err = %v", err)
	}
	if _, err := Build(context.Background(), fsys, nil, Options{}); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Errorf("nil output: err = %v", err)
	}
	res, out := build(t, "-- index.mdx --\nHi [x](/)\n", Options{BasePath: "docs/"})
	if res.Pages != 1 || !strings.Contains(out.get(t, "index.html"), `<a href="/docs/">x</a>`) {
		t.Errorf("base path docs/ not normalised to /docs")
	}
}

func TestBuildProgress(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls [][2]int
	_, _ = build(t, smallSite, Options{Progress: func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, [2]int{done, total})
	}})
	if len(calls) != len(smallPages)+1 {
		t.Fatalf("Progress called %d times: %v", len(calls), calls)
	}
	for i, c := range calls {
		if c != [2]int{i, len(smallPages)} {
			t.Errorf("call %d = %v, want %v", i, c, [2]int{i, len(smallPages)})
		}
	}
}

func TestBuildCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, sitetest.Archive(t, smallSite), newMemOutput(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled before: err = %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	out := newMemOutput()
	_, err := Build(ctx, sitetest.Archive(t, smallSite), out, Options{Progress: func(done, total int) {
		if done == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled during: err = %v, want context.Canceled", err)
	}
	if len(out.files) != 2 {
		t.Errorf("%d files written after cancellation at the first page, want 2 (the page and its Markdown)", len(out.files))
	}
}

func TestBuildOutputError(t *testing.T) {
	t.Parallel()
	_, err := Build(context.Background(), sitetest.Archive(t, smallSite), failingOutput{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v, want the output's error", err)
	}
}

type failingOutput struct{}

func (failingOutput) WriteFile(string, []byte) error { return errors.New("disk full") }

func TestExternalRefChecker(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		`<img src="https://cdn.test/a.png">`:                    true,
		`<iframe width="1" src='//x.test/'>`:                    true,
		`<link rel="stylesheet" href="https://fonts.test/c">`:   true,
		`body { background: url( "https://x.test/a.png") }`:     true,
		`@import "x.css";`:                                      true,
		`<img srcset="http://x.test/a.png 2x">`:                 true,
		`<a href="https://example.test/">ok</a>`:                false,
		`<link rel="canonical" href="https://docs.test/x">`:     false,
		`<img src="../images/a.png"> url(../a.png)`:             false,
		`<code>&lt;img src=&#34;https://x.test&#34;&gt;</code>`: false,
	} {
		if _, got := externalRef(text); got != want {
			t.Errorf("externalRef(%q) = %v, want %v", text, got, want)
		}
	}
	links := tagURLs(`<p><a class="x" href="/a">a</a><img alt="" src="b.png"><span href="/no"></span><video poster="p.jpg"></video>`)
	if strings.Join(links, " ") != "/a b.png p.jpg" {
		t.Errorf("tagURLs = %q", links)
	}
}
