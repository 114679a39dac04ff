// Command gencorpus writes a deterministic synthetic documentation corpus
// for the render benchmark (bench/render.sh), twice: as a Lectern site
// (docs.json + .mdx pages) and as a Hugo site with the same Markdown
// (content/*.md with front matter, a minimal layout showing the page's
// section sidebar, config).
//
// Pages are ~800 words with headings, fenced code blocks, a table, links to
// other pages and a few components. In the default layout (tabs), groups
// hold 50 pages and a tab holds 5 groups (250 pages), so the sidebar of a
// page lists 250 links in both generators' sites. In the folders layout
// (-layout folders), folders hold 500 pages (gNN/pNNNNN.mdx; 20 folders at
// 10,000 pages) and there is no docs.json, so that Lectern's navigation is
// the folder tree: one section of all the pages, a group per folder;
// Hugo's sidebar lists the page's folder (its section).
//
//	go run ./bench/gencorpus -pages 1000 -out /tmp/corpus
//	  → /tmp/corpus/lectern/{docs.json,tNN/pNNNNN.mdx}
//	  → /tmp/corpus/hugo/{hugo.toml,layouts/_default/single.html,content/tNN/pNNNNN.md}
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

const (
	groupSize = 50
	tabGroups = 5
	// folderSize is the number of pages of a folder in the folders layout.
	folderSize = 500
)

// folders is set by -layout folders.
var folders bool

var words = strings.Fields(`the a an of to in for on with by from as is are be can will should
page site build render output config server client request response token cache index search
document section group tab sidebar link image table column value field option setting default
module package function method type struct interface error warning message status handler route
deploy release version project account user team domain path file folder stream buffer queue
worker thread process memory disk network latency throughput batch record event metric trace
log query schema field key secret policy role permission plan quota limit retry timeout backoff
create update delete list get set run start stop enable disable configure install upgrade verify`)

var langs = []struct{ name, code string }{
	{"go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < %d; i++ {\n\t\tfmt.Println(\"item\", i)\n\t}\n}\n"},
	{"python", "def handler(event, context):\n    total = 0\n    for i in range(%d):\n        total += i\n    return {\"status\": 200, \"total\": total}\n"},
	{"javascript", "export async function fetchItems(client) {\n  const res = await client.get('/v1/items?limit=%d');\n  if (!res.ok) throw new Error(res.statusText);\n  return res.json();\n}\n"},
	{"bash", "#!/usr/bin/env bash\nset -euo pipefail\nfor i in $(seq %d); do\n  curl -sf \"https://api.example.test/v1/items/$i\" | jq .name\ndone\n"},
}

type gen struct {
	r     *rand.Rand
	pages int
}

func (g *gen) word() string { return words[g.r.IntN(len(words))] }

func (g *gen) capWord() string {
	w := g.word()
	return strings.ToUpper(w[:1]) + w[1:]
}

func (g *gen) sentence() string {
	n := 8 + g.r.IntN(10)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word()
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *gen) paragraph(sentences int, self int) string {
	var b strings.Builder
	for i := 0; i < sentences; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		s := g.sentence()
		switch g.r.IntN(6) {
		case 0: // a link to another page
			other := g.r.IntN(g.pages)
			if other == self {
				other = (other + 1) % g.pages
			}
			s = strings.TrimSuffix(s, ".") + fmt.Sprintf(", see [%s](/%s).", g.word()+" "+g.word(), pagePath(other))
		case 1:
			s = strings.TrimSuffix(s, ".") + " with `" + g.word() + "_" + g.word() + "` **" + g.word() + "**."
		}
		b.WriteString(s)
	}
	return b.String()
}

func pagePath(i int) string {
	if folders {
		return fmt.Sprintf("g%02d/p%05d", i/folderSize+1, i+1)
	}
	return fmt.Sprintf("t%02d/p%05d", i/(groupSize*tabGroups)+1, i+1)
}
func groupLabel(i int) string {
	if folders {
		return fmt.Sprintf("G%02d", i/folderSize+1) // the folder's label in Lectern's navigation
	}
	return fmt.Sprintf("Group %d", i/groupSize+1)
}
func tabLabel(i int) string { return fmt.Sprintf("Tab %d", i/(groupSize*tabGroups)+1) }

func (g *gen) title(i int) string {
	return fmt.Sprintf("%s %s %d", g.capWord(), g.word(), i+1)
}

// body returns the page's Markdown (without front matter): about 800 words.
func (g *gen) body(i int) string {
	var b strings.Builder
	b.WriteString(g.paragraph(4, i) + "\n\n")
	for sec := 0; sec < 5; sec++ {
		fmt.Fprintf(&b, "## %s %s %d\n\n", g.capWord(), g.word(), sec+1)
		b.WriteString(g.paragraph(4, i) + "\n\n")
		switch sec {
		case 1:
			l := langs[(i+sec)%len(langs)]
			fmt.Fprintf(&b, "```%s\n%s```\n\n", l.name, fmt.Sprintf(l.code, 3+i%7))
		case 2:
			b.WriteString("| Option | Type | Default | Description |\n| --- | --- | --- | --- |\n")
			for row := 0; row < 5; row++ {
				fmt.Fprintf(&b, "| `%s_%s` | %s | `%d` | %s |\n", g.word(), g.word(), []string{"string", "int", "bool"}[row%3], g.r.IntN(100), g.sentence())
			}
			b.WriteString("\n")
		case 3:
			fmt.Fprintf(&b, "<Note>\n%s\n</Note>\n\n", g.paragraph(2, i))
			l := langs[(i+sec)%len(langs)]
			fmt.Fprintf(&b, "```%s\n%s```\n\n", l.name, fmt.Sprintf(l.code, 5+i%3))
		case 4:
			fmt.Fprintf(&b, "<Tip>\n%s\n</Tip>\n\n", g.paragraph(2, i))
			b.WriteString("- " + g.sentence() + "\n- " + g.sentence() + "\n- " + g.sentence() + "\n\n")
		}
		fmt.Fprintf(&b, "### %s %s\n\n", g.capWord(), g.word())
		b.WriteString(g.paragraph(3, i) + "\n\n")
	}
	return b.String()
}

func main() {
	n := flag.Int("pages", 1000, "number of pages")
	out := flag.String("out", "corpus", "output folder (lectern/ and hugo/ are written under it)")
	layout := flag.String("layout", "tabs", "tabs (docs.json, tabs of 250 pages) or folders (no docs.json, folders of 500 pages)")
	flag.Parse()
	if *n < 1 {
		log.Fatal("-pages must be at least 1")
	}
	switch *layout {
	case "tabs":
	case "folders":
		folders = true
	default:
		log.Fatalf("-layout %q: want tabs or folders", *layout)
	}
	g := &gen{r: rand.New(rand.NewPCG(20261121, uint64(*n))), pages: *n}
	lec := filepath.Join(*out, "lectern")
	hugo := filepath.Join(*out, "hugo")
	for _, d := range []string{lec, hugo} {
		if err := os.RemoveAll(d); err != nil {
			log.Fatal(err)
		}
	}

	type group struct {
		Group string   `json:"group"`
		Pages []string `json:"pages"`
	}
	type tab struct {
		Tab    string   `json:"tab"`
		Groups []*group `json:"groups"`
	}
	var tabs []*tab
	for i := 0; i < *n; i++ {
		if i%(groupSize*tabGroups) == 0 {
			tabs = append(tabs, &tab{Tab: tabLabel(i)})
		}
		t := tabs[len(tabs)-1]
		if i%groupSize == 0 {
			t.Groups = append(t.Groups, &group{Group: groupLabel(i)})
		}
		gr := t.Groups[len(t.Groups)-1]
		gr.Pages = append(gr.Pages, pagePath(i))

		title := g.title(i)
		desc := g.sentence()
		body := g.body(i)
		fm := fmt.Sprintf("---\ntitle: %q\ndescription: %q\n", title, desc)
		write(filepath.Join(lec, pagePath(i)+".mdx"), fm+"---\n\n"+body)
		write(filepath.Join(hugo, "content", pagePath(i)+".md"),
			fm+fmt.Sprintf("group: %q\nweight: %d\n", groupLabel(i), i+1)+"---\n\n"+body)
	}
	cfg := map[string]any{
		"$schema":    "https://mintlify.com/docs.json",
		"theme":      "mint",
		"name":       "Bench Docs",
		"colors":     map[string]string{"primary": "#16a34a"},
		"navigation": map[string]any{"tabs": tabs},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if !folders {
		write(filepath.Join(lec, "docs.json"), string(data)+"\n")
	}

	// Hugo: one section per tab; the sidebar lists every page of the
	// section grouped by the "group" parameter, as Lectern's does, and
	// code is highlighted by Hugo's (Chroma) highlighter.
	write(filepath.Join(hugo, "hugo.toml"), `baseURL = "http://localhost/"
title = "Bench Docs"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
[markup.goldmark.renderer]
unsafe = true
[markup.highlight]
noClasses = false
`)
	sections := map[string]string{} // Hugo section → its title
	for _, t := range tabs {
		for _, gr := range t.Groups {
			for _, p := range gr.Pages {
				sec := strings.SplitN(p, "/", 2)[0]
				if _, ok := sections[sec]; !ok {
					sections[sec] = t.Tab
					if folders {
						sections[sec] = strings.ToUpper(sec[:1]) + sec[1:] // as Lectern labels a folder
					}
				}
			}
		}
	}
	for sec, title := range sections {
		write(filepath.Join(hugo, "content", sec, "_index.md"), fmt.Sprintf("---\ntitle: %q\n---\n", title))
	}
	write(filepath.Join(hugo, "layouts", "_default", "single.html"), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ site.Title }}</title>
<meta name="description" content="{{ .Description }}"></head>
<body><nav class="sidebar">
{{- $cur := . }}
{{- range (.CurrentSection.Pages.ByWeight.GroupByParam "group") }}
<div class="section"><p>{{ .Key }}</p><ul>
{{- range .Pages }}<li><a href="{{ .RelPermalink }}"{{ if eq . $cur }} class="active"{{ end }}>{{ .Title }}</a></li>{{ end -}}
</ul></div>
{{- end }}
</nav>
<main><h1>{{ .Title }}</h1>
{{ .TableOfContents }}
{{ .Content }}</main></body></html>
`)
	write(filepath.Join(hugo, "layouts", "_default", "list.html"), "<!doctype html><title>{{ .Title }}</title>\n")
	write(filepath.Join(hugo, "layouts", "index.html"), "<!doctype html><title>{{ site.Title }}</title>\n")
}

func write(name, data string) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		log.Fatal(err)
	}
}
