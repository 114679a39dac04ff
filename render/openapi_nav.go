package render

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/openapi"
	"lectern.dev/lectern/render/page"
)

// specKey turns a reference to a document into a source path (no leading
// slash) or a URL.
func specKey(ref, fromDir string, files map[string]bool) string {
	if config.IsExternal(ref) {
		return ref
	}
	p := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(ref, "./")), "/")
	if !files[p] && fromDir != "" && fromDir != "." && !strings.HasPrefix(ref, "/") {
		if q := path.Join(fromDir, ref); files[q] {
			return q
		}
	}
	return p
}

// loadSpec loads (once) the document key names. A document that cannot
// be used returns its error; the caller warns.
func (s *site) loadSpec(key string) *apiSpec {
	st := s.apiState()
	st.mu.Lock()
	defer st.mu.Unlock()
	if sp, ok := st.specs[key]; ok {
		return sp
	}
	sp := &apiSpec{}
	st.specs[key] = sp
	var data []byte
	var err error
	switch {
	case config.IsExternal(key) && !s.opts.AllowRemote:
		sp.err = fmt.Errorf("remote OpenAPI document %s not fetched (remote fetching is off)", key)
		return sp
	case config.IsExternal(key):
		data, err = fetchRemote(key)
	case !s.files[key]:
		sp.err = fmt.Errorf("OpenAPI document %q not found", key)
		return sp
	default:
		data, err = s.readFile(key)
	}
	if err != nil {
		sp.err = fmt.Errorf("OpenAPI document %s cannot be read: %v", key, err)
		return sp
	}
	doc, err := openapi.ParseFilesMax(key, data, s.readRefFile, s.opts.Limits.MaxYAMLValues)
	var ve *openapi.ValuesError
	if errors.As(err, &ve) {
		s.limit.Set(limits.Errorf(limits.MaxYAMLValues, cmp.Or(ve.File, key), fmt.Sprint(ve.Max), "%s", ve.Error()))
	}
	if err != nil {
		sp.err = fmt.Errorf("invalid OpenAPI document %s: %v", key, err)
		return sp
	}
	sp.doc = doc
	return sp
}

// readRefFile reads a file that a $ref of an OpenAPI document names: a
// file of the source (openapi.ParseFiles never asks for one outside it) or,
// when Options.AllowRemote is set, an http(s) URL.
func (s *site) readRefFile(name string) ([]byte, error) {
	switch {
	case config.IsExternal(name) && !s.opts.AllowRemote:
		return nil, errors.New("not fetched (remote fetching is off)")
	case config.IsExternal(name):
		return fetchRemote(name)
	case !s.files[name]:
		return nil, errors.New("not found")
	}
	data, err := s.readFile(name)
	if limits.AsError(err) != nil {
		s.limit.Set(err)
	}
	return data, err
}

// fetchRemote downloads a document (Options.AllowRemote).
func fetchRemote(u string) ([]byte, error) {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return nil, fmt.Errorf("only http and https URLs can be fetched")
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 32<<20))
}

// scanSpecs finds the source's OpenAPI documents: .json, .yaml and .yml
// files with a top-level "openapi" key.
func (s *site) scanSpecs() []string {
	st := s.apiState()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.didScan {
		return st.scanned
	}
	st.didScan = true
	for _, f := range slices.Sorted(maps.Keys(s.files)) {
		ext := strings.ToLower(path.Ext(f))
		if ext != ".json" && ext != ".yaml" && ext != ".yml" || f == "docs.json" || f == "mint.json" {
			continue
		}
		data, err := s.readFile(f)
		if limits.AsError(err) != nil {
			s.limit.Set(err)
		}
		if err != nil || len(data) > 32<<20 || !bytes.Contains(data, []byte("openapi")) {
			continue
		}
		if hasOpenAPIKey(data, ext) {
			st.scanned = append(st.scanned, f)
		}
	}
	return st.scanned
}

func hasOpenAPIKey(data []byte, ext string) bool {
	if ext == ".json" {
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) != nil {
			return false
		}
		_, ok := top["openapi"]
		return ok
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "openapi:") || strings.HasPrefix(line, `"openapi":`) || strings.HasPrefix(line, "'openapi':") {
			return true
		}
	}
	return false
}

// openAPINav reads the configuration's OpenAPI documents and generates the
// pages of navigation nodes with an "openapi" key. It runs before the
// navigation pages are read.
func (s *site) openAPINav(cfg *config.Config) {
	st := s.apiState()
	if cfg == nil {
		return
	}
	st.examples = s.readExamples(cfg)
	for _, v := range []any{cfg.Raw["openapi"], nestedKey(cfg.Raw, "api", "openapi")} {
		if n := config.ParseNavOpenAPI(v); n != nil {
			for _, src := range n.Sources {
				st.declared = append(st.declared, specKey(src, "", s.files))
			}
		}
	}
	if cfg.Nav == nil {
		return
	}
	var used map[string]bool
	if cfg.Nav.HasOpenAPI() { // else walk generates nothing: the common case
		used = map[string]bool{}
		for _, e := range cfg.Nav.Pages() {
			used[e.Page] = true
		}
	}
	var walk func(n *config.Nav, inherited string, dir string)
	walk = func(n *config.Nav, inherited, dir string) {
		var sources []string
		if n.OpenAPI != nil {
			for _, src := range n.OpenAPI.Sources {
				key := specKey(src, "", s.files)
				sources = append(sources, key)
				st.declared = append(st.declared, key)
			}
			inherited = sources[0]
			if n.OpenAPI.Directory != "" {
				dir = n.OpenAPI.Directory
			}
		}
		if n.OpenAPI != nil && len(n.Children) == 0 {
			s.generateOps(cfg, n, sources, dir, used)
			return
		}
		for i, c := range n.Children {
			if c.Kind != config.NavPage {
				walk(c, inherited, dir)
				continue
			}
			if inherited == "" {
				continue
			}
			st.pageSpec[c.Page] = inherited
			if ref, ok := openapi.ParseRef(c.Page); ok && strings.Contains(c.Page, " ") {
				// A page entry "GET /plants" under a node with a document.
				key := inherited
				if ref.File != "" {
					key = specKey(ref.File, "", s.files)
				}
				sp := s.loadSpec(key)
				if sp.err != nil {
					cfg.Warn(s.w, c.Page, "%v", sp.err)
					continue
				}
				op := sp.doc.Find(ref)
				if op == nil {
					cfg.Warn(s.w, c.Page, "operation %q not found in %s", ref.String(), key)
					continue
				}
				n.Children[i] = s.generatedNav(op, key, dir, used)
			}
		}
	}
	walk(cfg.Nav, "", "")
	// Entries "GET /x" that could not be resolved are dropped rather than
	// failing the build as missing pages.
	var prune func(n *config.Nav)
	prune = func(n *config.Nav) {
		kept := n.Children[:0]
		for _, c := range n.Children {
			if c.Kind == config.NavPage && st.generated[c.Page] == nil && strings.Contains(c.Page, " ") {
				if _, ok := openapi.ParseRef(c.Page); ok {
					continue
				}
			}
			prune(c)
			kept = append(kept, c)
		}
		n.Children = kept
	}
	prune(cfg.Nav)
}

func nestedKey(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// generateOps adds a page per operation of the documents to n: directly
// for a group, in one group per tag for a division or the root (as
// Mintlify does: the tag's x-group names it, "API Reference" holds the
// untagged operations). Operations with x-excluded get no page.
func (s *site) generateOps(cfg *config.Config, n *config.Nav, sources []string, dir string, used map[string]bool) {
	byTag := map[string]*config.Nav{}
	for _, key := range sources {
		sp := s.loadSpec(key)
		if sp.err != nil {
			src := key
			for _, o := range n.OpenAPI.Sources {
				if specKey(o, "", s.files) == key {
					src = o
				}
			}
			cfg.Warn(s.w, src, "%v", sp.err)
			continue
		}
		for _, op := range sp.doc.Operations {
			if op.Excluded() {
				continue
			}
			entry := s.generatedNav(op, key, dir, used)
			if n.Kind == config.NavGroup {
				n.Children = append(n.Children, entry)
				continue
			}
			tag := cmp.Or(op.Group(), defaultAPIGroup)
			g := byTag[tag]
			if g == nil {
				g = &config.Nav{Kind: config.NavGroup, Label: tag}
				byTag[tag] = g
				n.Children = append(n.Children, g)
			}
			g.Children = append(g.Children, entry)
		}
	}
}

// defaultAPIGroup is the navigation group of untagged operations.
const defaultAPIGroup = "API Reference"

// generatedNav makes the page of op, at the path Mintlify gives it
// (openapi.Doc.PagePaths, under the folder dir). A path that another page
// or file holds gets the next free suffix "-1", "-2"…; the same operation
// listed twice under the same folder is one page.
func (s *site) generatedNav(op *openapi.Operation, key, dir string, used map[string]bool) *config.Nav {
	st := s.apiState()
	base := s.opPagePath(op, key, dir)
	if slug, ok := st.slugs[opPath{op, base}]; ok {
		return &config.Nav{Kind: config.NavPage, Page: slug}
	}
	i := st.suffix[base]
	slug := base
	if i > 0 {
		slug = fmt.Sprintf("%s-%d", base, i)
	}
	for used[slug] || s.files[slug+".mdx"] || s.files[slug+".md"] || st.generated[slug] != nil {
		i++
		slug = fmt.Sprintf("%s-%d", base, i)
	}
	st.suffix[base] = i
	st.slugs[opPath{op, base}] = slug
	used[slug] = true
	ref := op.Ref()
	ref.File = key
	p := &page.Page{Path: slug, File: key, Title: op.Title(), MDX: true, BodyLine: 1}
	p.Front.OpenAPI = ref.String()
	p.Front.Title = p.Title
	p.Front.Hidden = op.Hidden()
	st.generated[slug] = &apiGenerated{op: op, page: p}
	return &config.Nav{Kind: config.NavPage, Page: slug}
}

// opPagePath returns the page path Mintlify gives op, of the document
// key, under the folder dir, made safe for a file name and a URL.
func (s *site) opPagePath(op *openapi.Operation, key, dir string) string {
	st := s.apiState()
	dir = openapi.CleanPagePath(dir)
	k := key + "\x00" + dir
	paths := st.pagePaths[k]
	if paths == nil {
		paths = op.Doc().PagePaths(dir)
		st.pagePaths[k] = paths
	}
	p, ok := paths[op]
	if !ok { // x-excluded, yet listed by a navigation entry
		p = openapi.SinglePagePath(op, dir)
	}
	p = openapi.CleanPagePath(p)
	if p == "" || reserved(p) {
		p = path.Join(openapi.DefaultDirectory, "operation")
	}
	return p
}

// openAPIGenerated returns the page the OpenAPI navigation generated for
// entry e, or nil when e is a page of the repository.
func (s *site) openAPIGenerated(e config.NavEntry) *page.Page {
	if s.api == nil || s.api.generated[e.Page] == nil {
		return nil
	}
	return s.api.generated[e.Page].page
}
