package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strconv"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/links"
)

// cacheKey hashes what every page depends on.
func cacheKey(s *site, tool string) string {
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
	if s.cfg != nil {
		line("config", s.cfg.Source, s.cfg.KeySum())
	}
	// What the above decides of Lectern's own assets, which every page
	// links to by their content's hash (own_assets.go).
	line(append([]string{"assets"}, s.pageAssetNames()...)...)
	for _, f := range s.fileList {
		if s.cfg != nil && f == s.cfg.Source {
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
	return hex.EncodeToString(h.Sum(nil))
}
