package render

// llms-full.txt with the rebuild cache (llms.go): kept as it is when no
// page was rendered again and it holds the same pages at the same URLs
// (llmsKey); else made again, each kept page's entry taken from the
// previous file (its place there is in the page's record) rather than
// read from its Markdown file.

// keepLLMsFull reports whether the previous build's llms-full.txt is kept
// (and records it).
func (c *buildCache) keepLLMsFull(s *site, key string) bool {
	if c.prev == nil || c.out == nil || s.reused != len(s.order) || c.prev.LLMsKey != key || c.prev.LLMsFull.Size == 0 {
		return false
	}
	if !c.out.KeepFile(llmsFullFile, c.prev.LLMsFull) {
		return false
	}
	c.out.MarkWritten(llmsFullFile)
	// Every page was kept: its record, the previous one, has its place.
	c.next.LLMsFull, c.next.LLMsKey = c.prev.LLMsFull, key
	return true
}

// previousLLMsFull returns the previous build's llms-full.txt when the
// output holds it as written, else nil.
func (c *buildCache) previousLLMsFull() []byte {
	if c == nil || c.prev == nil || c.out == nil || c.prev.LLMsFull.Size == 0 {
		return nil
	}
	data, ok := c.out.ReadKept(llmsFullFile, c.prev.LLMsFull)
	if !ok {
		return nil
	}
	return data
}

// keptLLMsEntry returns page i's entry of the previous llms-full.txt,
// prev, when the page was kept from the previous build; else nil.
func (c *buildCache) keptLLMsEntry(s *site, prev []byte, i int) []byte {
	if c == nil || prev == nil || c.prev == nil || s.mds != nil && s.mds[i] != nil {
		return nil
	}
	old := c.prev.Pages[s.order[i].Path]
	if old == nil || old.FullLen <= 0 || old.FullOff < 0 || old.FullOff+old.FullLen > int64(len(prev)) {
		return nil
	}
	return prev[old.FullOff : old.FullOff+old.FullLen]
}

// recordLLMsFull records llms-full.txt as written, and the place of each
// page's entry in it.
func (c *buildCache) recordLLMsFull(s *site, pages []int, spans []llmsSpan, key string) {
	if c.out == nil {
		return
	}
	info, ok := c.out.FileInfo(llmsFullFile)
	if !ok {
		return
	}
	c.next.LLMsFull, c.next.LLMsKey = info, key
	place := make(map[int]llmsSpan, len(pages))
	for k, i := range pages {
		place[i] = spans[k]
	}
	for i, p := range s.order {
		rec := c.next.Pages[p.Path]
		sp := place[i] // zero for a page not in the file
		if rec == nil || rec.FullOff == sp.off && rec.FullLen == sp.n {
			continue
		}
		r := *rec // a copy: the record may be the previous build's
		r.FullOff, r.FullLen = sp.off, sp.n
		c.next.Pages[p.Path] = &r
	}
}
