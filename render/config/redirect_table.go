package config

import "strings"

// RedirectTable matches paths against the configuration's redirects.
type RedirectTable struct {
	exact    map[string]string
	patterns []Redirect
}

func NewRedirectTable(list []Redirect) *RedirectTable {
	t := &RedirectTable{exact: map[string]string{}}
	for _, r := range list {
		src := "/" + strings.Trim(r.Source, "/")
		if strings.ContainsAny(src, ":*") {
			t.patterns = append(t.patterns, Redirect{Source: src, Destination: r.Destination})
		} else if _, dup := t.exact[src]; !dup {
			t.exact[src] = r.Destination
		}
	}
	return t
}

// Match returns the destination for path p ("/a/b"), with :params filled.
func (t *RedirectTable) Match(p string) (string, bool) {
	if d, ok := t.exact[p]; ok {
		return d, true
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, r := range t.patterns {
		if d, ok := matchPattern(r, segs); ok {
			return d, true
		}
	}
	return "", false
}

func matchPattern(r Redirect, segs []string) (string, bool) {
	pat := strings.Split(strings.Trim(r.Source, "/"), "/")
	params := map[string]string{}
	for i, ps := range pat {
		rest := strings.HasSuffix(ps, "*")
		switch {
		case rest && (ps == "*" || strings.HasPrefix(ps, ":")):
			params[strings.TrimSuffix(ps, "*")] = strings.Join(segs[min(i, len(segs)):], "/")
			return fillParams(r.Destination, params), true
		case i >= len(segs):
			return "", false
		case strings.HasPrefix(ps, ":"):
			params[ps] = segs[i]
		case ps != segs[i]:
			return "", false
		}
	}
	if len(pat) != len(segs) {
		return "", false
	}
	return fillParams(r.Destination, params), true
}

func fillParams(dest string, params map[string]string) string {
	segs := strings.Split(dest, "/")
	for i, s := range segs {
		if v, ok := params[strings.TrimSuffix(s, "*")]; ok && strings.HasPrefix(s, ":") {
			segs[i] = v
		}
	}
	return strings.Join(segs, "/")
}
