package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/limits"
)

// Config is a site's configuration, read from docs.json or the legacy
// mint.json. Settings this version does not use are kept in Raw.
type Config struct {
	// Source is the file the configuration came from: "docs.json",
	// "mint.json", or "" when there is none and the navigation was built
	// from the folder tree.
	Source      string
	Name        string
	Description string
	Colors      Colors
	Logo        Logo
	// Favicon is a site path such as "/favicon.svg", or "".
	Favicon string
	// Nav is the navigation tree; never nil after a successful Build.
	Nav *Nav
	// NavbarLinks are the header links (docs.json navbar.links, mint.json
	// topbarLinks).
	NavbarLinks []Link
	// NavbarPrimary is the header's button (docs.json navbar.primary,
	// mint.json topbarCtaButton), or nil.
	NavbarPrimary *Button
	// Appearance, Fonts, Background and Styling are the settings of the
	// site's look (appearance.go).
	Appearance Appearance
	Fonts      Fonts
	Background Background
	Styling    Styling
	// Anchors are global links shown above the sidebar (docs.json
	// navigation.global anchors and tabs that are plain links, mint.json
	// anchors).
	Anchors []Link
	// FooterLinks are the footer's social links, sorted by label.
	FooterLinks []Link
	Redirects   []Redirect
	// IndexAll (docs.json "seo": {"indexing": "all"}) puts hidden and
	// unlisted pages in search and the sitemap.
	IndexAll bool
	// Contextual is the pages' contextual menu (contextual.go).
	Contextual Contextual
	// Raw is the decoded configuration object, nil without a config.
	Raw map[string]any

	data []byte // the file, to find the line of a value
}

// Warn reports a problem with a value of the configuration, on the line
// where the value (a string) first appears.
func (c *Config) Warn(w *diag.Warner, value, format string, args ...any) {
	(&cfgWarner{w: w, file: c.Source, data: c.data}).warn(value, format, args...)
}

// Colors are the theme colours; Primary drives links and accents.
type Colors struct{ Primary, Light, Dark string }

// Logo holds the logo image paths for light and dark backgrounds and the
// optional link target of the logo.
type Logo struct{ Light, Dark, Href string }

// Link is a labelled link of the header, footer or sidebar.
type Link struct{ Label, Href, Icon string }

// Redirect maps an old path to a new one. Source may end in a :param* or *
// wildcard and hold :param segments, which Destination may reuse.
type Redirect struct {
	Source, Destination string
	Permanent           bool
}

// Load reads docs.json, or else mint.json, from the root of src. It
// returns (nil, nil) when neither exists, and an EINVALID error naming the
// file when it is not a JSON object.
func Load(src fs.FS, w *diag.Warner, maxBytes int64) (*Config, error) {
	for _, name := range []string{"docs.json", "mint.json"} {
		data, err := limits.ReadFile(src, name, maxBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, limits.ReadError(name, err)
		}
		raw, err := decodeJSONObject(name, data)
		if err != nil {
			return nil, err
		}
		cfg := &Config{Source: name, Raw: raw, data: data}
		cw := &cfgWarner{w: w, file: name, data: data}
		cfg.Name = Str(raw["name"])
		cfg.Description = Str(raw["description"])
		if c, ok := raw["colors"].(map[string]any); ok {
			cfg.Colors = Colors{Primary: Str(c["primary"]), Light: Str(c["light"]), Dark: Str(c["dark"])}
		}
		cfg.Logo = parseLogo(raw["logo"])
		cfg.Favicon = parseFavicon(raw["favicon"])
		cfg.Redirects = parseRedirects(raw["redirects"])
		cfg.FooterLinks = parseSocials(raw)
		if seo, ok := raw["seo"].(map[string]any); ok {
			cfg.IndexAll = Str(seo["indexing"]) == "all"
		}
		parseLook(cfg, raw, cw)
		if name == "docs.json" {
			parseDocsJSON(cfg, raw, cw)
			parseContextual(cfg, raw, cw)
		} else {
			parseMintJSON(cfg, raw, cw)
		}
		return cfg, nil
	}
	return nil, nil
}

// decodeJSONObject decodes data as a JSON object, reporting syntax errors
// with their line.
func decodeJSONObject(name string, data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := min(int(se.Offset), len(data))
			return nil, lectern.Errorf(lectern.EINVALID, "%s: invalid JSON at line %d: %s", name, lineAt(data, off), se.Error())
		}
		return nil, lectern.Errorf(lectern.EINVALID, "%s: invalid JSON: %s", name, err.Error())
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, lectern.Errorf(lectern.EINVALID, "%s: the top level must be a JSON object", name)
	}
	return obj, nil
}

// lineAt returns the 1-based line of byte offset off in data. An offset
// just past a newline counts on the line before it, where JSON errors
// usually are.
func lineAt(data []byte, off int) int {
	if off > 0 && off <= len(data) && data[off-1] == '\n' {
		off--
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// cfgWarner reports configuration warnings with the line of a quoted value
// when it can be found.
type cfgWarner struct {
	w    *diag.Warner
	file string
	data []byte
}

func (c *cfgWarner) warn(value, format string, args ...any) {
	line := 0
	if value != "" {
		if q, err := json.Marshal(value); err == nil {
			if i := bytes.Index(c.data, q); i >= 0 {
				line = lineAt(c.data, i+1)
			}
		}
	}
	c.w.Add(c.file, line, format, args...)
}

func Str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

func boolean(v any) bool {
	b, _ := v.(bool)
	return b
}

func parseLogo(v any) Logo {
	switch l := v.(type) {
	case string:
		return Logo{Light: l, Dark: l}
	case map[string]any:
		lg := Logo{Light: Str(l["light"]), Dark: Str(l["dark"]), Href: Str(l["href"])}
		if lg.Light == "" {
			lg.Light = lg.Dark
		}
		if lg.Dark == "" {
			lg.Dark = lg.Light
		}
		return lg
	}
	return Logo{}
}

func parseFavicon(v any) string {
	switch f := v.(type) {
	case string:
		return strings.TrimSpace(f)
	case map[string]any:
		if s := Str(f["light"]); s != "" {
			return s
		}
		return Str(f["dark"])
	}
	return ""
}

func parseRedirects(v any) []Redirect {
	list, _ := v.([]any)
	var out []Redirect
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		r := Redirect{Source: Str(m["source"]), Destination: Str(m["destination"]), Permanent: boolean(m["permanent"])}
		if r.Source != "" && r.Destination != "" {
			out = append(out, r)
		}
	}
	return out
}

func parseSocials(raw map[string]any) []Link {
	footer, _ := raw["footer"].(map[string]any)
	v := footer["socials"]
	if v == nil {
		v = raw["footerSocials"] // mint.json
	}
	socials, _ := v.(map[string]any)
	if list, ok := v.([]any); ok { // [{"type": "github", "url": "..."}]
		socials = map[string]any{}
		for _, item := range list {
			if m, ok := item.(map[string]any); ok && Str(m["type"]) != "" {
				socials[Str(m["type"])] = m["url"]
			}
		}
	}
	var out []Link
	for k, v := range socials {
		if href := Str(v); href != "" {
			out = append(out, Link{Label: k, Href: href, Icon: k})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// linkList reads [{label|name, href|url, icon}] items.
func linkList(v any) []Link {
	list, _ := v.([]any)
	var out []Link
	for _, item := range list {
		if l, ok := LinkItem(item); ok {
			out = append(out, l)
		}
	}
	return out
}

func LinkItem(v any) (Link, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return Link{}, false
	}
	l := Link{Label: Str(m["label"]), Href: Str(m["href"]), Icon: Str(m["icon"])}
	for _, k := range []string{"name", "anchor", "tab", "type"} {
		if l.Label == "" {
			l.Label = Str(m[k])
		}
	}
	if l.Href == "" {
		l.Href = Str(m["url"])
	}
	if l.Label == "" {
		l.Label = l.Href
	}
	return l, l.Href != ""
}

func parseDocsJSON(cfg *Config, raw map[string]any, cw *cfgWarner) {
	if nb, ok := raw["navbar"].(map[string]any); ok {
		cfg.NavbarLinks = linkList(nb["links"])
		cfg.NavbarPrimary = parseButton(nb["primary"], "navbar.primary", cw)
	}
	b := &navBuilder{cw: cw}
	cfg.Nav = &Nav{Kind: NavRoot}
	switch nav := raw["navigation"].(type) {
	case map[string]any:
		b.object(nav, cfg.Nav, "navigation")
		if g, ok := nav["global"].(map[string]any); ok {
			cfg.Anchors = append(cfg.Anchors, globalLinks(g)...)
		}
	case []any: // mint.json-style list of groups in a docs.json
		b.pages(nav, cfg.Nav, "navigation")
	case nil:
	default:
		cw.warn("", "navigation must be an object; ignored")
	}
}

// globalLinks returns the plain links of navigation.global.
func globalLinks(g map[string]any) []Link {
	var out []Link
	for _, key := range []string{"anchors", "tabs", "dropdowns"} {
		list, _ := g[key].([]any)
		for _, item := range list {
			if l, ok := LinkItem(item); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// IsExternal reports whether href names another host or scheme.
func IsExternal(href string) bool {
	return schemeRE.MatchString(href) || strings.HasPrefix(href, "//")
}
