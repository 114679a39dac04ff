package render

import (
	"path"
	"strings"

	"lectern.dev/lectern/render/components"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/page"
)

// loadModule parses file (a clean path in the source) once per build and
// resolves its imports. It returns nil when the file cannot be read.
func (s *site) loadModule(file string) *mdx.Module {
	if m, ok := s.mods[file]; ok {
		return m
	}
	data, err := s.readFile(file)
	if err != nil {
		if limits.AsError(err) != nil {
			s.limit.Set(err)
		}
		return nil
	}
	src := page.NormalizeNewlines(page.TextSource(file, string(data), s.w))
	_, body, bodyLine, _ := page.SplitFrontMatter(src)
	if len(src) > page.MaxSource {
		s.w.Add(file, 1, "snippet source larger than %d MiB (%s); its content is not shown", page.MaxSource>>20, limits.FormatSize(int64(len(src))))
		body = page.TooLargeNotice(len(src))
	}
	return s.parseModule(file, body, bodyLine)
}

// parseModule parses body, the source of file from line bodyLine on.
func (s *site) parseModule(file, body string, bodyLine int) *mdx.Module {
	m := &mdx.Module{File: file, Names: map[string]*mdx.Binding{}}
	s.mods[file] = m // before resolving imports, so cycles end
	p := mdx.NewParser(body, file, bodyLine, strings.HasSuffix(file, ".mdx") || isJSModule(file), s.w)
	sink := &mdx.ESMSink{}
	p.ESM = sink
	if isJSModule(file) {
		p.ParseJS() // a module of components: its exports only, no content
	} else {
		m.Nodes, _ = p.ParseFlow(nil)
	}
	sink.Resolve()
	m.Exports = sink.Exports
	for name, b := range sink.Locals {
		b.Mod = m
		m.Names[name] = b
	}
	for name, b := range sink.Exports {
		b.Mod = m
		m.Names[name] = b
	}
	for _, d := range sink.Imports {
		s.resolveImport(m, d)
	}
	return m
}

// resolveImport binds the names of one import statement of m.
func (s *site) resolveImport(m *mdx.Module, d mdx.ImportDecl) {
	unresolved := func() {
		for _, n := range append([]string{d.Def, d.StarAll}, localNames(d.Named)...) {
			if n != "" {
				m.Names[n] = &mdx.Binding{Kind: mdx.BUnresolved}
			}
		}
	}
	ext := path.Ext(d.From)
	if ext != ".mdx" && ext != ".md" && ext != ".jsx" {
		if d.Def == "" && d.StarAll == "" && len(d.Named) == 0 {
			s.w.Add(m.File, d.Line, "import %q ignored: only .mdx, .md and .jsx snippets can be imported", d.From)
		} else {
			s.w.Add(m.File, d.Line, "cannot import %q: only .mdx, .md and .jsx snippets can be imported; its components are not rendered", d.From)
		}
		unresolved()
		return
	}
	target := d.From
	if strings.HasPrefix(target, ".") {
		target = path.Join("/", path.Dir(m.File), target)[1:]
	} else {
		target = path.Clean("/" + target)[1:]
	}
	if !s.links.HasFile(target) {
		s.w.Add(m.File, d.Line, "cannot import %q: file not found", d.From)
		unresolved()
		return
	}
	snip := s.loadModule(target)
	if snip == nil {
		s.w.Add(m.File, d.Line, "cannot import %q: file cannot be read", d.From)
		unresolved()
		return
	}
	if d.Def != "" {
		switch def := snip.Exports["default"]; {
		case !isJSModule(target):
			m.Names[d.Def] = snip.Whole()
		case def != nil:
			m.Names[d.Def] = def
		default:
			s.w.Add(m.File, d.Line, "%s has no default export", target)
			m.Names[d.Def] = &mdx.Binding{Kind: mdx.BUnresolved}
		}
	}
	if d.StarAll != "" {
		s.w.Add(m.File, d.Line, "import * as %s from %q is not supported", d.StarAll, d.From)
		m.Names[d.StarAll] = &mdx.Binding{Kind: mdx.BUnresolved}
	}
	for _, n := range d.Named {
		if b, ok := snip.Exports[n[0]]; ok {
			m.Names[n[1]] = b
			continue
		}
		s.w.Add(m.File, d.Line, "%s has no exported component %s", target, n[0])
		m.Names[n[1]] = &mdx.Binding{Kind: mdx.BUnresolved}
	}
}

// isJSModule reports whether file is a JavaScript module of components
// (a .jsx snippet) rather than MDX or Markdown.
func isJSModule(file string) bool { return path.Ext(file) == ".jsx" }

func localNames(named [][2]string) []string {
	out := make([]string, 0, len(named))
	for _, n := range named {
		out = append(out, n[1])
	}
	return out
}

// renderEnv is what the components.Renderer of a page needs of s.
func (s *site) renderEnv() *components.Env {
	env := &components.Env{W: s.w, Links: s.links, MaxExpansions: s.opts.Limits.MaxExpansions, Limit: s.limit, LoadModule: s.loadModule,
		Icons: s.cfg.Icons(), EmbedHosts: s.opts.features().EmbedHosts}
	if s.cache != nil {
		env.Code = s.cache.code
	}
	return env
}
