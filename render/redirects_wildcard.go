package render

import (
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/layout"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/safe"
)

// Redirects whose source has parameters ("/old/:slug*", "/a/*") cannot be
// static pages. They are followed in the browser instead: 404.html loads
// _lectern/redirects.js (a file, so that a Content-Security-Policy of
// 'self' allows it), which holds the rules and the site's pages, matches
// location.pathname against the rules and, when the destination is a page
// of the site (or another host, or a file), goes there with
// location.replace. Otherwise the 404 page stays. The script finds the
// site's root from its own URL, so it works under any base path; it reads
// both forms of paths ("/docs/old/x" and "old/x.html").
//
// A source segment is a literal, :name (one segment), or, as the last
// segment, :name? (zero or one), :name* or * (zero or more) or :name+ (one
// or more). A destination segment that is :name (with or without ?, * or
// +) or * is replaced by what the source captured under that name.

// redirectsScriptFile is the name of the script, written under a name
// with its hash (own_assets.go).
const redirectsScriptFile = "_lectern/redirects.js"

// redirectsJS is the matcher, a function expression taking a
// redirectConfig: the build appends the call with the site's.
var redirectsJS = layout.Asset("theme/redirects.js")

// redirectConfig is the data of _lectern/redirects.js.
type redirectConfig struct {
	// Export says pages are .html files.
	Export bool `json:"export"`
	// Rules are the wildcard redirects, in docs.json order.
	Rules []wildcardRule `json:"rules"`
	// Exact maps the sources of the other redirects (no leading slash) to
	// their destination, relative to the site's root or absolute, so that
	// a wildcard destination may lead to one of them.
	Exact map[string]string `json:"exact,omitempty"`
	// Pages are the site's page paths ("guides/x", "index").
	Pages []string `json:"pages"`
}

// wildcardRule is a redirect with parameters, compiled.
type wildcardRule struct {
	Source []ruleSeg `json:"s"`
	// Dest is the destination's path segments (for another host, the
	// whole URL split at "/"); Suffix its "?query#fragment", if any.
	Dest     []ruleSeg `json:"d"`
	Suffix   string    `json:"q,omitempty"`
	External bool      `json:"x,omitempty"`
}

// ruleSeg is a literal segment (Lit) or a parameter (Param, with Mod one
// of "", "?", "*", "+"). The parameter of a bare "*" is named "*".
type ruleSeg struct {
	Lit   string `json:"l,omitempty"`
	Param string `json:"p,omitempty"`
	Mod   string `json:"m,omitempty"`
}

var paramSegRE = regexp.MustCompile(`^:([A-Za-z0-9_]+)([?*+]?)$`)

// isPattern reports whether a redirect source has parameters or
// wildcards.
func isPattern(src string) bool { return strings.ContainsAny(src, ":*") }

// compileWildcard compiles redirect r, whose source is a pattern. It
// returns an error, worded for a warning, when the rule cannot be
// expressed.
func (s *site) compileWildcard(r config.Redirect) (wildcardRule, error) {
	var w wildcardRule
	src := strings.Trim(strings.TrimSpace(r.Source), "/")
	segs := strings.Split(src, "/")
	names := map[string]bool{}
	for i, seg := range segs {
		last := i == len(segs)-1
		var rs ruleSeg
		if m := paramSegRE.FindStringSubmatch(seg); m != nil {
			rs = ruleSeg{Param: m[1], Mod: m[2]}
		} else if seg == "*" {
			rs = ruleSeg{Param: "*", Mod: "*"}
		} else if lit, err := url.PathUnescape(seg); err == nil && lit != "" && lit != "." && lit != ".." && !strings.ContainsAny(seg, ":*?#\\()[]{}") {
			rs = ruleSeg{Lit: lit}
		} else {
			return w, fmt.Errorf("redirect source %q has a segment %q that a static site cannot match (only whole segments :name, or at the end :name?, :name*, :name+ or *); no redirect is written", r.Source, seg)
		}
		if rs.Mod != "" && !last {
			return w, fmt.Errorf("redirect source %q has %q before its end, which a static site cannot match (only the last segment may be optional or repeated); no redirect is written", r.Source, seg)
		}
		if rs.Param != "" {
			if names[rs.Param] {
				return w, fmt.Errorf("redirect source %q names the parameter %q twice; no redirect is written", r.Source, rs.Param)
			}
			names[rs.Param] = true
		}
		w.Source = append(w.Source, rs)
	}
	dest := strings.TrimSpace(r.Destination)
	w.External = config.IsExternal(dest)
	if w.External && safe.Href(dest) != dest {
		return w, fmt.Errorf("redirect destination %q (from %q) is not a web address; no redirect is written", r.Destination, r.Source)
	}
	p, suffix := splitDestSuffix(dest)
	if !w.External {
		w.Suffix = suffix
		p = strings.TrimPrefix(path.Clean("/"+p), "/")
	} else {
		p = dest
	}
	params := false
	for _, seg := range strings.Split(p, "/") {
		m := paramSegRE.FindStringSubmatch(seg)
		switch {
		case m != nil || seg == "*":
			name := "*"
			if m != nil {
				name = m[1]
			}
			if !names[name] {
				return w, fmt.Errorf("redirect destination %q names %q, which its source %q does not have; no redirect is written", r.Destination, seg, r.Source)
			}
			w.Dest = append(w.Dest, ruleSeg{Param: name})
			params = true
		case w.External:
			w.Dest = append(w.Dest, ruleSeg{Lit: seg})
		default:
			lit, err := url.PathUnescape(seg)
			if err != nil {
				lit = seg
			}
			if lit != "" {
				w.Dest = append(w.Dest, ruleSeg{Lit: lit})
			}
		}
	}
	if !w.External && !params {
		// A fixed destination is checked now, as for exact redirects.
		if tg := s.links.Resolve("", dest); tg.Kind == links.Missing {
			return w, fmt.Errorf("redirect destination %q (from %q) not found: %s; no redirect is written", r.Destination, r.Source, tg.Reason)
		}
	}
	return w, nil
}

// splitDestSuffix splits a redirect destination before its query or
// fragment; the "?" of an optional parameter (":name?") is not a query.
func splitDestSuffix(dest string) (p, suffix string) {
	for i := 0; i < len(dest); i++ {
		switch dest[i] {
		case '#':
			return dest[:i], dest[i:]
		case '?':
			seg := dest[strings.LastIndexByte(dest[:i], '/')+1 : i]
			next := i + 1
			if paramSegRE.MatchString(seg+"?") && (next == len(dest) || strings.IndexByte("/?#", dest[next]) >= 0) {
				continue
			}
			return dest[:i], dest[i:]
		}
	}
	return dest, ""
}

// redirectConfig compiles the configuration's wildcard redirects. It
// returns nil when there are none; warn receives the problems of those it
// leaves out.
func (s *site) redirectConfig(warn func(r config.Redirect, field string, err error)) *redirectConfig {
	if s.cfg == nil {
		return nil
	}
	c := &redirectConfig{Export: s.opts.Export, Exact: map[string]string{}}
	for _, r := range s.cfg.Redirects {
		src := strings.Trim(strings.TrimSpace(r.Source), "/")
		if !isPattern(src) {
			if src == "" || strings.ContainsAny(src, "?#\\") || !fs.ValidPath(src) {
				continue
			}
			if _, dup := c.Exact[src]; dup {
				continue
			}
			tg := s.links.Resolve("", r.Destination)
			if tg.Kind == links.Missing || !safe.URLAllowed(r.Destination, false) {
				continue // a javascript: or data: destination: no redirect (redirectPages writes "#")
			}
			c.Exact[src] = s.rootRelativeURL(tg)
			continue
		}
		w, err := s.compileWildcard(r)
		if err != nil {
			if warn != nil {
				field := r.Source
				if strings.HasPrefix(err.Error(), "redirect destination") {
					field = r.Destination
				}
				warn(r, field, err)
			}
			continue
		}
		c.Rules = append(c.Rules, w)
	}
	if len(c.Rules) == 0 {
		return nil
	}
	for _, p := range s.order {
		c.Pages = append(c.Pages, p.Path)
	}
	return c
}

// rootRelativeURL is the URL of t relative to the site's root ("" for the
// home page), or t's URL when it is on another host.
func (s *site) rootRelativeURL(t links.Target) string {
	u := s.links.URL("index.html", t) // a file at the root: relative to it in the export form
	if t.Kind == links.External || s.opts.Export {
		return u
	}
	return strings.TrimPrefix(strings.TrimPrefix(u, s.opts.BasePath), "/")
}

// redirectsScript returns _lectern/redirects.js for c.
func redirectsScript(c *redirectConfig) []byte {
	data, err := json.Marshal(c)
	if err != nil {
		panic(err) // strings and slices only: cannot fail
	}
	out := make([]byte, 0, len(redirectsJS)+len(data)+32)
	out = append(out, redirectsJS...)
	out = append(out, '(')
	out = append(out, data...)
	out = append(out, ");\n"...)
	return out
}

// redirectScriptTag returns the <script> element 404.html loads the
// wildcard redirects with, or "" when the site has none. Like every URL of
// 404.html its path is absolute, so the 404 page finds it whatever the
// depth of the missing path it is served for.
func (s *site) redirectScriptTag() string {
	if _, ok := s.links.Assets[redirectsScriptFile]; !ok {
		return ""
	}
	return `<script src="` + html.EscapeString(s.links.AssetURL("404.html", redirectsScriptFile)) + `"></script>`
}
