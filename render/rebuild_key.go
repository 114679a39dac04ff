package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/limits"
	"lectern.dev/lectern/render/links"
)

// cacheKey hashes what every page depends on.
func cacheKey(s *site, tool string) (string, error) {
	h := sha256.New()
	line := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(strconv.Quote(p)))
			h.Write([]byte{' '})
		}
		h.Write([]byte{'\n'})
	}
	line(tool)
	line("opts", s.opts.BasePath, strconv.FormatBool(s.opts.Export), s.opts.SiteURL, strconv.FormatBool(s.opts.AllowRemote),
		fmt.Sprintf("%+v", s.opts.features()), strconv.FormatBool(s.opts.CustomScripts))
	for _, name := range []string{"docs.json", "mint.json"} {
		if s.files[name] {
			data, err := s.readFile(name)
			if err != nil {
				return "", limits.ReadError(name, err)
			}
			line("config", name, configSum(data))
		}
	}
	for _, f := range s.fileList {
		if f == "docs.json" || f == "mint.json" {
			continue // hashed above
		}
		if links.IsPageFile(f) {
			// Pages come and go without a change of key: each page's
			// record says what it looked up in the site (cache.Page.Links).
			continue
		}
		st, ok := s.stamps[f]
		if !ok {
			fi, err := fs.Stat(s.src, f)
			if err != nil {
				line("file", f, "?")
				continue
			}
			st = cache.StampOf(fi)
		}
		line("file", f, strconv.FormatInt(st.Size, 10), strconv.FormatInt(st.ModTime, 10))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// configSum hashes a configuration file (docs.json, mint.json) without
// the pages its navigation lists (the strings of its "pages" arrays;
// groups and divisions stay), so that a page added to or moved in the
// navigation does not change the rebuild cache's key: what a page shows
// of them is in its own record (contextHash: its part of the sidebar,
// its neighbours, where the tabs lead). A file that is not JSON is
// hashed as it is.
func configSum(data []byte) string {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return cache.Sum(data)
	}
	out, err := json.Marshal(withoutPages(v))
	if err != nil {
		return cache.Sum(data)
	}
	return cache.Sum(append([]byte("nav-skeleton "), out...))
}

// withoutPages returns v with the strings of every array under a "pages"
// key taken out.
func withoutPages(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if list, ok := c.([]any); ok && k == "pages" {
				kept := list[:0]
				for _, e := range list {
					if _, page := e.(string); !page {
						kept = append(kept, e)
					}
				}
				c = kept
			}
			x[k] = withoutPages(c)
		}
	case []any:
		for i, c := range x {
			x[i] = withoutPages(c)
		}
	}
	return v
}
