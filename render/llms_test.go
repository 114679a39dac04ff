package render

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/output"
)

// llmsSite has two tabs of groups, a nested group, a page hidden by its
// front matter, one under a hidden group, a page that is a link
// elsewhere, a noindex page and an unlisted one: llms.txt and
// llms-full.txt list the pages of the sitemap only.
const llmsSite = `
-- docs.json --
{"name": "Acme Docs", "description": "Everything about Acme.",
 "navigation": {"tabs": [
   {"tab": "Guides", "groups": [
     {"group": "Start", "pages": ["index", "quickstart", {"group": "Deep", "pages": ["guides/deep"]}, "guides/hidden", "guides/away", "guides/noindex"]},
     {"group": "Secret", "hidden": true, "pages": ["guides/secret"]}]},
   {"tab": "Reference", "groups": [{"group": "API", "pages": ["ref/api"]}]}]}}
-- index.mdx --
---
title: Welcome
description: The [Acme] docs
---
Read the [quickstart](/quickstart).
-- quickstart.mdx --
---
title: Quick start
---
<Steps>
  <Step title="Install">Run it.</Step>
</Steps>
-- guides/deep.mdx --
---
title: Deep dive
description: Going deeper.
---
Back [home](../index).
-- guides/hidden.mdx --
---
title: Hidden
hidden: true
---
Hidden page.
-- guides/away.mdx --
---
title: Away
url: https://example.com/away
---
-- guides/noindex.mdx --
---
title: Not indexed
noindex: true
---
Text.
-- guides/secret.mdx --
---
title: Secret
---
Secret.
-- guides/unlisted.mdx --
---
title: Unlisted
---
Not in the navigation.
-- ref/api.mdx --
---
title: API
---
The API.
`

func TestLLMsFiles(t *testing.T) {
	t.Parallel()
	_, out := build(t, llmsSite, Options{BasePath: "/docs"})
	wantTxt := `# Acme Docs

> Everything about Acme.

## Guides / Start

- [Welcome](/docs/index.md): The [Acme] docs
- [Quick start](/docs/quickstart.md)

## Guides / Start / Deep

- [Deep dive](/docs/guides/deep.md): Going deeper.

## Reference / API

- [API](/docs/ref/api.md)
`
	if got := out.get(t, "llms.txt"); got != wantTxt {
		t.Errorf("llms.txt:\n%s\nwant:\n%s\n(%s)", got, wantTxt, sitetest.FirstDiff(wantTxt, got))
	}
	wantFull := `# Welcome

Source: /docs/

The \[Acme\] docs

Read the [quickstart](/docs/quickstart).

# Quick start

Source: /docs/quickstart

1. **Install**

   Run it.

# Deep dive

Source: /docs/guides/deep

Going deeper.

Back [home](/docs/).

# API

Source: /docs/ref/api

The API.
`
	if got := out.get(t, "llms-full.txt"); got != wantFull {
		t.Errorf("llms-full.txt:\n%s\nwant:\n%s\n(%s)", got, wantFull, sitetest.FirstDiff(wantFull, got))
	}
	// Every page has its Markdown beside it, those left out of llms.txt too.
	for _, p := range []string{"index", "quickstart", "guides/deep", "guides/hidden", "guides/away", "guides/noindex", "guides/secret", "guides/unlisted", "ref/api"} {
		if md := out.get(t, p+".md"); !strings.HasPrefix(md, "# ") {
			t.Errorf("%s.md does not start with the title:\n%s", p, md)
		}
	}
	if md := out.get(t, "guides/away.md"); !strings.Contains(md, "This page is at <https://example.com/away>.") {
		t.Errorf("guides/away.md does not say where the page is:\n%s", md)
	}
}

// TestLLMsURLs: with the site's URL the links are absolute; an export's
// are relative to the site's root, as the files are.
func TestLLMsURLs(t *testing.T) {
	t.Parallel()
	_, abs := build(t, llmsSite, Options{BasePath: "/docs", SiteURL: "https://docs.acme.test/docs"})
	if got := abs.get(t, "llms.txt"); !strings.Contains(got, "- [Deep dive](https://docs.acme.test/docs/guides/deep.md): Going deeper.\n") {
		t.Errorf("llms.txt with a site URL:\n%s", got)
	}
	if got := abs.get(t, "llms-full.txt"); !strings.Contains(got, "\nSource: https://docs.acme.test/docs/guides/deep\n") {
		t.Errorf("llms-full.txt with a site URL:\n%s", got)
	}
	_, exp := build(t, llmsSite, Options{Export: true})
	if got := exp.get(t, "llms.txt"); !strings.Contains(got, "- [Welcome](index.md): The [Acme] docs\n") || !strings.Contains(got, "- [Deep dive](guides/deep.md)") {
		t.Errorf("llms.txt of an export:\n%s", got)
	}
	if got := exp.get(t, "llms-full.txt"); !strings.Contains(got, "\nSource: guides/deep.html\n") || !strings.Contains(got, "Source: index.html\n") {
		t.Errorf("llms-full.txt of an export:\n%s", got)
	}
	// The page's Markdown links as its HTML does: relative in an export.
	if got := exp.get(t, "guides/deep.md"); !strings.Contains(got, "Back [home](../index.html).") {
		t.Errorf("guides/deep.md of an export:\n%s", got)
	}
}

// TestLLMsRepositoryFiles: a repository's own llms.txt and llms-full.txt
// are published as they are, in place of the build's.
func TestLLMsRepositoryFiles(t *testing.T) {
	t.Parallel()
	own := llmsSite + "-- llms.txt --\n# Our own index\n"
	res, out := build(t, own, Options{})
	if got := out.get(t, "llms.txt"); got != "# Our own index\n" {
		t.Errorf("llms.txt is not the repository's:\n%s", got)
	}
	if got := out.get(t, "llms-full.txt"); !strings.HasPrefix(got, "# Welcome\n\nSource: /\n") {
		t.Errorf("llms-full.txt is not the build's:\n%s", got)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w.File, "llms") {
			t.Errorf("warning: %s", w)
		}
	}
	_, out = build(t, own+"-- llms-full.txt --\nAll of it, by hand.\n", Options{Export: true})
	if got := out.get(t, "llms-full.txt"); got != "All of it, by hand.\n" {
		t.Errorf("llms-full.txt is not the repository's:\n%s", got)
	}
}

// TestMarkdownIndexCopy: without an "index" page, index.html is a copy of
// the first page, and so is index.md, its links written from the root.
func TestMarkdownIndexCopy(t *testing.T) {
	t.Parallel()
	site := "-- docs.json --\n{\"name\": \"X\", \"navigation\": {\"pages\": [\"guides/first\", \"other\"]}}\n" +
		"-- guides/first.mdx --\n---\ntitle: First\n---\nSee [other](../other).\n-- other.mdx --\n---\ntitle: Other\n---\nO.\n"
	_, out := build(t, site, Options{Export: true})
	if got := out.get(t, "index.md"); got != "# First\n\nSee [other](other.html).\n" {
		t.Errorf("index.md:\n%s", got)
	}
	if got := out.get(t, "guides/first.md"); got != "# First\n\nSee [other](../other.html).\n" {
		t.Errorf("guides/first.md:\n%s", got)
	}
	if !strings.Contains(out.get(t, "index.html"), `data-markdown="index.md"`) {
		t.Errorf("index.html's page actions do not name index.md")
	}
}

// TestMarkdownTransform: the Markdown files and llms files are plain site
// files, which features.Site.Transform keeps as they are with any
// features.
func TestMarkdownTransform(t *testing.T) {
	t.Parallel()
	_, out := build(t, llmsSite, Options{Export: true})
	all := features.Site{Search: true, Assistant: true, AssistantURL: "https://ai.acme.test/ask", Analytics: true,
		AnalyticsURL: "https://stats.acme.test/hit", Playground: true}
	for _, f := range []features.Site{{}, all} {
		for _, name := range []string{"quickstart.md", "guides/deep.md", "llms.txt", "llms-full.txt"} {
			data := out.files[name]
			got, keep, err := f.Transform(name, data)
			if err != nil || !keep || !bytes.Equal(got, data) {
				t.Errorf("Transform(%s) with %+v: keep %v, err %v, changed %v", name, f, keep, err, !bytes.Equal(got, data))
			}
		}
	}
}

// TestLLMsRebuild: with the rebuild cache, updating the output in place,
// each page's Markdown is kept with its page and written again when it
// changes, and llms.txt and llms-full.txt are as a clean build's (which
// cacheBuildTo checks) as pages change, come and go, and move.
func TestLLMsRebuild(t *testing.T) {
	t.Parallel()
	fsys := sitetest.Archive(t, llmsSite)
	dir, cacheDir := filepath.Join(t.TempDir(), "site"), t.TempDir()
	out := output.Dir{Dir: dir, Update: true}
	step := func(what string, wantReused int) []string {
		t.Helper()
		before := map[string]fs.FileInfo{}
		if _, err := os.Stat(dir); err == nil {
			before = identities(t, dir)
		}
		if res := cacheBuildTo(t, fsys, out, cacheDir, false); res.Reused != wantReused {
			t.Fatalf("%s: %d pages reused, want %d", what, res.Reused, wantReused)
		}
		return notSearch(rewritten(before, identities(t, dir)))
	}
	step("first build", 0)
	if got := step("nothing changed", 9); len(got) != 0 {
		t.Fatalf("a build without changes wrote %v", got)
	}
	// One page's body: its page, its Markdown and llms-full.txt, made
	// of the other pages' entries as they were.
	fsys["guides/deep.mdx"].Data = bytes.Replace(fsys["guides/deep.mdx"].Data, []byte("Back"), []byte("Go back"), 1)
	if got := step("one body changed", 8); !sameSet(got, []string{"guides/deep.html", "guides/deep.md", "llms-full.txt"}) {
		t.Fatalf("a change of a page's body wrote %v", got)
	}
	if full := readOut(t, dir, "llms-full.txt"); !strings.Contains(full, "Go back [home](/).") || !strings.Contains(full, "# API\n\nSource: /ref/api\n") {
		t.Fatalf("llms-full.txt:\n%s", full)
	}
	// A description: llms.txt too.
	fsys["ref/api.mdx"].Data = []byte("---\ntitle: API\ndescription: All endpoints.\n---\nThe API.\n")
	if got := step("description changed", 8); !sameSet(got, []string{"ref/api.html", "ref/api.md", "llms.txt", "llms-full.txt"}) {
		t.Fatalf("a change of a page's description wrote %v", got)
	}
	// A page that is a link elsewhere no more: it joins both.
	fsys["guides/away.mdx"].Data = []byte("---\ntitle: Away no more\n---\nHere now.\n")
	step("page now in the sitemap", 1) // its title is in its tab's sidebar
	if txt := readOut(t, dir, "llms.txt"); !strings.Contains(txt, "[Away no more](/guides/away.md)") {
		t.Fatalf("llms.txt:\n%s", txt)
	}
	// A page removed from the navigation and its file: its Markdown goes.
	fsys["docs.json"].Data = bytes.Replace(fsys["docs.json"].Data, []byte(`, "guides/noindex"`), nil, 1)
	delete(fsys, "guides/noindex.mdx")
	step("page removed", 1)
	if _, err := os.Stat(filepath.Join(dir, "guides/noindex.md")); !os.IsNotExist(err) {
		t.Fatalf("guides/noindex.md is still in the output (%v)", err)
	}
	// A page's Markdown edited by hand: the page is rendered again.
	if err := os.WriteFile(filepath.Join(dir, "quickstart.md"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	// (Its HTML, the same, is left alone: output.Dir.Update.)
	if got := step("Markdown edited", 7); !sameSet(got, []string{"quickstart.md"}) {
		t.Fatalf("a Markdown file edited by hand: wrote %v", got)
	}
}
