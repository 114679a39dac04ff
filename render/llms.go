package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// llms.txt and llms-full.txt, for language models (https://llmstxt.org),
// at the root of every site (live, export, bundle):
//
//   - llms.txt: "# Site name", "> description" (docs.json's), then, per
//     group of the navigation, "## Group" and a line per page,
//     "- [Title](PAGE.md): description";
//   - llms-full.txt: the Markdown of every page (page_markdown.go), in
//     navigation order, each under its title and "Source: URL".
//
// The pages are those of the sitemap (inSitemap): not hidden, unlisted,
// noindex or links elsewhere. URLs are absolute with Options.SiteURL,
// else as the site's other links are (absolute paths on a live site,
// relative in an export). A repository that has its own llms.txt or
// llms-full.txt at its root publishes it as it is instead.

const (
	llmsFile     = "llms.txt"
	llmsFullFile = "llms-full.txt"
)

// writeLLMFiles writes llms.txt and llms-full.txt, but not one the
// repository has (copySourceFiles copies it), and marks them in generated.
func (s *site) writeLLMFiles(generated map[string]bool) error {
	pages := s.llmsPages()
	if !s.publishes(llmsFile) {
		if err := s.write(llmsFile, s.llmsTxt(pages)); err != nil {
			return err
		}
		generated[llmsFile] = true
	}
	if s.publishes(llmsFullFile) {
		return nil
	}
	generated[llmsFullFile] = true
	key := s.llmsKey(pages)
	if s.cache != nil && s.cache.keepLLMsFull(s, key) { // rebuild_llms.go
		s.written++
		return nil
	}
	data, spans, err := s.llmsFull(pages)
	if err != nil {
		return err
	}
	if err := s.write(llmsFullFile, data); err != nil {
		return err
	}
	if s.cache != nil {
		s.cache.recordLLMsFull(s, pages, spans, key)
	}
	return nil
}

// publishes reports whether the repository has the file name, published
// as it is.
func (s *site) publishes(name string) bool {
	return s.files[name] && !s.links.Unpublished[name]
}

// llmsPages returns the indices in s.order of the pages llms.txt lists.
func (s *site) llmsPages() []int {
	var out []int
	for i, p := range s.order {
		if s.inSitemap(p) {
			out = append(out, i)
		}
	}
	return out
}

// llmsTxt returns llms.txt: the site's name and description, then a
// section per group of the navigation, in order of first appearance.
func (s *site) llmsTxt(pages []int) []byte {
	var b strings.Builder
	b.WriteString("# " + oneLine(s.cfg.Name) + "\n")
	if d := oneLine(s.cfg.Description); d != "" {
		b.WriteString("\n> " + d + "\n")
	}
	var order []string
	sections := map[string][]string{}
	for _, i := range pages {
		p := s.order[i]
		sec := s.llmsSection(p.Path)
		if _, ok := sections[sec]; !ok {
			order = append(order, sec)
		}
		line := "- [" + linkText(p.Title) + "](" + s.llmsMarkdownURL(p.Path) + ")"
		if d := oneLine(p.Front.Description); d != "" {
			line += ": " + d
		}
		sections[sec] = append(sections[sec], line)
	}
	for _, sec := range order {
		b.WriteString("\n## " + sec + "\n\n")
		b.WriteString(strings.Join(sections[sec], "\n") + "\n")
	}
	return []byte(b.String())
}

// llmsSection is the heading of a page's section in llms.txt: its
// division and groups ("API reference / Users"), or "Docs".
func (s *site) llmsSection(pagePath string) string {
	e := s.entries[pagePath]
	var parts []string
	for _, l := range append([]string{e.Division}, e.Groups...) {
		if l = oneLine(l); l != "" && (len(parts) == 0 || parts[len(parts)-1] != l) {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return "Docs"
	}
	return strings.Join(parts, " / ")
}

// llmsMarkdownURL is the URL of a page's Markdown in llms.txt.
func (s *site) llmsMarkdownURL(pagePath string) string {
	name := markdownName(pagePath + ".html")
	if s.opts.SiteURL != "" {
		return s.links.Canonical(name)
	}
	return s.links.AssetURL(llmsFile, name)
}

// llmsPageURL is the URL of a page in llms-full.txt.
func (s *site) llmsPageURL(pagePath string) string {
	if s.opts.SiteURL != "" {
		return s.links.Canonical(pagePath)
	}
	return s.links.PageURL(llmsFullFile, pagePath)
}

// llmsKey hashes the pages of llms-full.txt and their URLs: with the same
// key and no page rendered again, the previous file is the same.
func (s *site) llmsKey(pages []int) string {
	h := sha256.New()
	for _, i := range pages {
		h.Write([]byte(s.order[i].Path + "\x00" + s.llmsPageURL(s.order[i].Path) + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// llmsSpan is where a page's entry is in llms-full.txt.
type llmsSpan struct{ off, n int64 }

// llmsFull returns llms-full.txt and where each page's entry is in it: a
// page kept from the previous build takes its entry from the previous
// file, when it is in the output as written; the others are made from the
// page's Markdown.
func (s *site) llmsFull(pages []int) ([]byte, []llmsSpan, error) {
	if s.cache == nil {
		// Made as the pages were written (writePageMarkdown).
		data := s.llmsFullBuf.Bytes()
		s.llmsFullBuf = bytes.Buffer{}
		return data, nil, nil
	}
	prev := s.cache.previousLLMsFull()
	var b bytes.Buffer
	size := len(prev) + 64*len(pages)
	for _, md := range s.mds {
		size += len(md)
	}
	b.Grow(size) // once: the file of a large site is tens of MB
	spans := make([]llmsSpan, len(pages))
	for k, i := range pages {
		if b.Len() > 0 {
			b.WriteByte('\n') // a blank line between entries
		}
		start := b.Len()
		if entry := s.cache.keptLLMsEntry(s, prev, i); entry != nil {
			b.Write(entry)
		} else {
			md, err := s.markdownOf(i)
			if err != nil {
				return nil, nil, err
			}
			s.writeLLMsEntry(&b, i, md)
		}
		spans[k] = llmsSpan{int64(start), int64(b.Len() - start)}
	}
	s.mds = nil // no more use
	return b.Bytes(), spans, nil
}

// writeLLMsEntry writes page i's entry of llms-full.txt, md its Markdown:
// its title, "Source: URL", then the rest of its Markdown.
func (s *site) writeLLMsEntry(b *bytes.Buffer, i int, md []byte) {
	p := s.order[i]
	title := "# " + oneLine(p.Title)
	if first, rest, _ := bytes.Cut(md, []byte("\n")); bytes.HasPrefix(first, []byte("# ")) {
		title, md = string(first), rest
	}
	b.WriteString(title + "\n\nSource: " + s.llmsPageURL(p.Path) + "\n\n")
	b.Write(bytes.TrimLeft(md, "\n"))
	if len(md) > 0 && md[len(md)-1] != '\n' {
		b.WriteByte('\n')
	}
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var linkTextEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`)

// linkText makes s the text of a Markdown link.
func linkText(s string) string { return linkTextEscaper.Replace(oneLine(s)) }
