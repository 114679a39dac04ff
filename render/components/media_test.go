package components_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

// mediaPage has media on other hosts as Mintlify sites write them: video
// players of YouTube (also youtube-nocookie and youtu.be), Vimeo and Loom,
// another page, a remote <video> and one with a remote <source>, and a
// local video, which stays.
const mediaPage = `<iframe
  className="w-full aspect-video rounded-xl"
  src="https://www.youtube.com/embed/4KzFe50RQkQ?si=abc&start=30"
  title="YouTube video player"
  frameBorder="0"
  allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture"
  allowFullScreen
></iframe>

<Frame>
<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" />
</Frame>

<iframe src="https://player.vimeo.com/video/76979871?h=8272103f6e" width="640" height="360"></iframe>

<iframe src="https://www.loom.com/embed/0281766fa2d04bb788eaf19e65135184?sid=1"></iframe>

<iframe src="https://codesandbox.io/embed/abc" title="A <sandbox> & more"></iframe>

<video controls src="https://cdn.example.com/demo.mp4" title="Product demo"></video>

<video autoPlay muted loop playsInline>
  <source src="https://cdn.example.com/loop.webm" type="video/webm" />
</video>

<video controls src="/videos/local.mp4"></video>
`

// TestMediaGolden renders mediaPage for a live site without embed hosts,
// one that allows YouTube's and Vimeo's player hosts, and an export with
// the same setting (which exports ignore): poster cards everywhere but the
// allowed iframes of the second.
func TestMediaGolden(t *testing.T) {
	t.Parallel()
	allow := features.Default()
	allow.EmbedHosts = []string{"www.youtube.com", "player.vimeo.com"}
	for _, c := range []struct {
		name string
		opts render.Options
	}{
		{"media-live", render.Options{BasePath: "/docs"}},
		{"media-embeds", render.Options{BasePath: "/docs", Features: &allow}},
		{"media-export", render.Options{Export: true, Features: &allow}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			site := sitetest.Archive(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n"+mediaPage+
				"-- videos/local.mp4 --\nMP4\n")
			out := t.TempDir()
			res, err := render.Build(context.Background(), site, output.Dir{Dir: out}, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range res.Warnings {
				t.Errorf("warning: %s", w)
			}
			page := string(sitetest.ReadDir(t, out)["index.html"])
			got := sitetest.Content(t, page) + "\n"
			sitetest.Golden(t, filepath.Join("testdata", "golden", c.name+".golden"), c.name, got, *updateGolden)

			// The YouTube and Vimeo players where they are allowed; not
			// youtube-nocookie's, Loom's or the sandbox, whose hosts are not
			// listed; none in an export, whose policy frames nothing else.
			iframes := strings.Count(got, "<iframe")
			if want := map[bool]int{true: 2}[c.name == "media-embeds"]; iframes != want {
				t.Errorf("%d iframes, want %d", iframes, want)
			}
			if c.opts.Export {
				meta := page[strings.Index(page, `http-equiv="Content-Security-Policy"`):]
				if meta = meta[:strings.Index(meta, ">")]; strings.Contains(meta, "frame-src") || strings.Contains(meta, "youtube") {
					t.Errorf("export policy %s", meta)
				}
			}
			// Nothing is loaded from another host: no src, srcset or poster
			// names one, but those of the allowed players.
			for _, attr := range []string{` src="http`, ` src="//`, ` poster="`, ` srcset="`} {
				if n := strings.Count(got, attr); n != map[bool]int{true: 2}[attr == ` src="http` && c.name == "media-embeds"] {
					t.Errorf("%d %s", n, attr)
				}
			}
		})
	}
}

// A source written as an expression is read as one written as a string.
func TestMediaExpressionSrc(t *testing.T) {
	t.Parallel()
	site := sitetest.Archive(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\n"+
		"<iframe src={\"https://youtu.be/4KzFe50RQkQ\"} />\n\n<video src={`https://cdn.example.com/a.mp4`} />\n")
	out := t.TempDir()
	res, err := render.Build(context.Background(), site, output.Dir{Dir: out}, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := sitetest.Content(t, string(sitetest.ReadDir(t, out)["index.html"]))
	if !strings.Contains(got, `<a class="lc-media-card" href="https://www.youtube.com/watch?v=4KzFe50RQkQ" target="_blank" rel="noopener noreferrer">`) {
		t.Errorf("no poster card in\n%s", got)
	}
	if !strings.Contains(got, `<a class="lc-media-card" href="https://cdn.example.com/a.mp4" target="_blank" rel="noopener noreferrer">`) {
		t.Errorf("no poster card for the video in\n%s", got)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
}
