package render

import (
	"html"
	"path"
	"sort"
	"strings"
	"sync"

	"lectern.dev/lectern/render/components"
	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/openapi"
	"lectern.dev/lectern/render/page"
)

// apiState is the OpenAPI state of a build: documents loaded, pages
// generated from the navigation, whether a page has a playground.
//
// Pages are rendered in parallel (parallel.go); mu guards the mutable
// fields during rendering. The state is created by openAPINav, before.
type apiState struct {
	mu    sync.Mutex
	specs map[string]*apiSpec // by source path or URL
	// declared are the documents named by the configuration, searched
	// first for front matter references without a file.
	declared []string
	scanned  []string // every OpenAPI document of the source, sorted
	didScan  bool
	// pageSpec is the document inherited by a navigation page from the
	// tab or group holding it.
	pageSpec  map[string]string
	generated map[string]*apiGenerated
	// pagePaths are the page paths of each document's operations, by
	// document and folder (openapi.Doc.PagePaths).
	pagePaths map[string]map[*openapi.Operation]string
	// slugs are the pages generated for each operation, by the path
	// Mintlify gives it (generatedNav); suffix is the suffix of the last
	// page generated for a path, those before it being taken.
	slugs      map[opPath]string
	suffix     map[string]int
	examples   openapi.Examples // api.examples
	playground bool
}

// opPath is an operation and the path Mintlify gives its page.
type opPath struct {
	op   *openapi.Operation
	path string
}

type apiSpec struct {
	doc *openapi.Doc
	err error
}

type apiGenerated struct {
	op   *openapi.Operation
	page *page.Page
}

func (s *site) apiState() *apiState {
	if s.api == nil {
		s.api = &apiState{specs: map[string]*apiSpec{}, pageSpec: map[string]string{}, generated: map[string]*apiGenerated{},
			pagePaths: map[string]map[*openapi.Operation]string{}, slugs: map[opPath]string{}, suffix: map[string]int{}}
	}
	return s.api
}

// openAPIBody returns the body of the page p of operation op: the
// operation's reference around the page's content, with the examples
// column (reqHTML and respHTML, the page's own examples, replace the
// generated ones).
func (s *site) openAPIBody(r *components.Renderer, p *page.Page, mod *mdx.Module, op *openapi.Operation, content, reqHTML, respHTML string) string {
	line := s.frontMatterLine(p, "openapi")
	// The description's warnings are reported where the page names the
	// operation: its lines are the document's, not the page's.
	sc := &mdx.Scope{Mod: mod, Line: line}
	pg := s.opts.features().Playground && s.playgroundAllowed(p)
	res := openapi.Render(op, neutralOpenAPI(openapi.Options{
		Markdown:        func(src string) string { return r.MarkdownText(src, sc) },
		Playground:      pg,
		Content:         content,
		RequestExample:  reqHTML,
		ResponseExample: respHTML,
		Examples:        s.apiState().examples,
		Code:            s.codeBlockFunc(),
	}))
	for _, prob := range res.Problems {
		s.w.Add(p.File, line, "OpenAPI %s %s: %s", op.Doc().Name, op.Ref().String(), prob)
	}
	// The document's own problems ($refs to other files that lead nowhere)
	// are given where the $ref is; every page of the document gives them,
	// and the build keeps the first of each.
	for _, prob := range op.Doc().Problems {
		s.w.Add(prob.File, prob.Line, "OpenAPI %s", prob.Message)
	}
	if res.Playground {
		st := s.apiState()
		st.mu.Lock()
		st.playground = true
		st.mu.Unlock()
		// The script, marked like the form (render/features).
		return res.HTML + openapi.PlaygroundBegin + `<script src="` + html.EscapeString(s.links.AssetURL(r.Out(), playgroundFile.out())) + `" defer></script>` +
			openapi.PlaygroundEnd + "\n"
	}
	return res.HTML
}

// neutralOpenAPI makes marker-like comments of the descriptions inert, so
// that only the playground's own markers are found in the page.
func neutralOpenAPI(o openapi.Options) openapi.Options {
	if md := o.Markdown; md != nil {
		o.Markdown = func(src string) string { return features.NeutralizeMarkers(md(src)) }
	}
	return o
}

// playgroundAllowed reads the "playground" setting of the page (front
// matter) and of the configuration (api.playground.display or mode).
func (s *site) playgroundAllowed(p *page.Page) bool {
	off := func(v any) bool {
		switch config.Str(v) {
		case "none", "hide", "false":
			return true
		}
		b, isBool := v.(bool)
		return isBool && !b
	}
	if p.Front.Raw != nil && off(p.Front.Raw["playground"]) {
		return false
	}
	if s.cfg != nil {
		if off(nestedKey(s.cfg.Raw, "api", "playground", "display")) || off(nestedKey(s.cfg.Raw, "api", "playground", "mode")) {
			return false
		}
	}
	return true
}

// findOperation resolves the openapi front matter of p, warning when it
// cannot.
func (s *site) findOperation(p *page.Page) *openapi.Operation {
	line := s.frontMatterLine(p, "openapi")
	ref, ok := openapi.ParseRef(p.Front.OpenAPI)
	if !ok {
		s.w.Add(p.File, line, "openapi %q is not an operation reference such as \"GET /path\" or \"WEBHOOK name\"", p.Front.OpenAPI)
		return nil
	}
	st := s.apiState()
	if ref.File != "" {
		key := specKey(ref.File, path.Dir(p.File), s.files)
		sp := s.loadSpec(key)
		if sp.err != nil {
			s.w.Add(p.File, line, "%v", sp.err)
			return nil
		}
		if op := sp.doc.Find(ref); op != nil {
			return op
		}
		s.w.Add(p.File, line, "unknown operation %q: not in %s", ref.String(), key)
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for _, list := range [][]string{{st.pageSpec[p.Path]}, st.declared, s.scanSpecs()} {
		for _, k := range list {
			if k != "" && !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	var problems []string
	for _, k := range keys {
		sp := s.loadSpec(k)
		if sp.err != nil {
			problems = append(problems, sp.err.Error())
			continue
		}
		if op := sp.doc.Find(ref); op != nil {
			return op
		}
	}
	for _, prob := range problems {
		s.w.Add(p.File, line, "%s", prob)
	}
	switch {
	case len(keys) == 0:
		s.w.Add(p.File, line, "unknown operation %q: no OpenAPI document found in the source", ref.String())
	default:
		sort.Strings(keys)
		s.w.Add(p.File, line, "unknown operation %q: not in %s", ref.String(), strings.Join(keys, ", "))
	}
	return nil
}

// frontMatterLine returns the line of key in p's front matter, else 1.
func (s *site) frontMatterLine(p *page.Page, key string) int {
	if s.api != nil && s.api.generated[p.Path] != nil {
		return 0
	}
	data, err := s.readFile(p.File)
	if err != nil {
		return 1
	}
	lines := strings.Split(page.NormalizeNewlines(string(data)), "\n")
	for i, l := range lines {
		if i > 0 && strings.TrimSpace(l) == "---" {
			break
		}
		t := strings.TrimLeft(l, `"'`)
		if strings.HasPrefix(t, key) && strings.HasPrefix(strings.TrimLeft(t[len(key):], `"'`), ":") {
			return i + 1
		}
	}
	return 1
}

// playgroundMarker is in every page that loads the playground script (its
// name, with its hash: own_assets.go); the build cache looks for it to
// remember the page needs the script.
func playgroundMarker() string { return playgroundFile.out() }

// writeOpenAPIFiles writes _lectern/playground.js (under its name with its
// hash: own_assets.go) when a page has a playground.
func (s *site) writeOpenAPIFiles(generated map[string]bool) error {
	if s.api == nil {
		return nil
	}
	s.api.mu.Lock()
	used := s.api.playground
	s.api.mu.Unlock()
	if !used {
		return nil
	}
	name := playgroundFile.out()
	if err := s.write(name, playgroundFile.data); err != nil {
		return err
	}
	generated[name] = true
	return nil
}

// openAPIBlock shows the operation a page's openapi front matter names,
// such as "POST /plants" or "spec.json GET /plants", when the page is not
// generated from the document.
func openAPIBlock(ref string) string {
	fields := strings.Fields(ref)
	for i, f := range fields {
		if openapi.IsMethod(f) && i+1 < len(fields) {
			return openapi.Header(f, fields[i+1])
		}
	}
	return ""
}
