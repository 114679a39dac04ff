package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// KeySum hashes the configuration file without the pages its navigation
// lists (the strings of the "pages" arrays under "navigation"; groups,
// divisions and every other key stay), for the rebuild cache's key: a
// page added to or moved in the navigation does not change it, and what
// a page shows of the navigation is in its own record. Numbers are hashed
// as written.
func (c *Config) KeySum() string {
	data := bytes.TrimPrefix(c.data, []byte("\xef\xbb\xbf"))
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v map[string]any
	if d.Decode(&v) != nil || d.More() {
		return sum([]byte("file "), data)
	}
	if nav, ok := v["navigation"]; ok {
		v["navigation"] = withoutPages(nav)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return sum([]byte("file "), data)
	}
	return sum([]byte("skeleton "), out)
}

func sum(kind, data []byte) string {
	h := sha256.New()
	h.Write(kind)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// withoutPages returns v, a navigation decoded afresh, with the strings of
// every array under a "pages" key taken out.
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
