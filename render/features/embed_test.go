package features

import (
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestParseEmbedHosts(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":  nil,
		" ": nil,
		"www.youtube.com,www.youtube-nocookie.com,player.vimeo.com,www.loom.com": {"www.youtube.com", "www.youtube-nocookie.com", "player.vimeo.com", "www.loom.com"},
		"WWW.YouTube.com, player.vimeo.com ,www.youtube.com":                     {"www.youtube.com", "player.vimeo.com"},
		"a.test b.test\tc.test": {"a.test", "b.test", "c.test"},
	} {
		got, err := ParseEmbedHosts(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseEmbedHosts(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"https://www.youtube.com":   "has a scheme",
		"//www.youtube.com":         "has a scheme",
		"*.youtube.com":             "has a wildcard",
		"www.youtube.com:443":       "no port, path or user",
		"www.youtube.com/embed":     "no port, path or user",
		"user@www.youtube.com":      "no port, path or user",
		"localhost":                 "is not a host name",
		"-bad.test":                 "is not a host name",
		"bad_host.test":             "is not a host name",
		"a.test,'self'":             "is not a host name",
		"a.test; script-src *":      "is not a host name",
		"xn--bcher-kva.test,ü.test": "is not a host name",
	} {
		_, err := ParseEmbedHosts(in)
		if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEmbedHosts(%q) = %v; want an EINVALID error saying %q", in, err, want)
		}
	}
	many := ""
	for i := range 51 {
		many += "h" + strings.Repeat("x", i) + ".test,"
	}
	if _, err := ParseEmbedHosts(many); err == nil || !strings.Contains(err.Error(), "at most 50") {
		t.Errorf("51 hosts: %v", err)
	}
}

// The pages' policy frames exactly the listed hosts, over https, and the
// site itself; without hosts it has no frame-src (default-src 'self').
func TestEmbedHostsPolicy(t *testing.T) {
	t.Parallel()
	f := Default()
	if csp := f.ContentSecurityPolicy(); strings.Contains(csp, "frame-src") {
		t.Errorf("policy without embed hosts: %s", csp)
	}
	f.EmbedHosts = []string{"www.youtube.com", "player.vimeo.com"}
	csp := f.ContentSecurityPolicy()
	if !strings.Contains(csp, "; frame-src 'self' https://www.youtube.com https://player.vimeo.com; ") {
		t.Errorf("policy: %s", csp)
	}
	if meta := f.MetaContentSecurityPolicy(); !strings.Contains(meta, "frame-src 'self' https://www.youtube.com https://player.vimeo.com") {
		t.Errorf("meta policy: %s", meta)
	}
	if err := f.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	// A Site built by hand is checked too, and what it holds never
	// reaches the header unchecked.
	for _, bad := range [][]string{{"WWW.youtube.com"}, {"x.test; script-src *"}, {"*.x.test"}} {
		g := Default()
		g.EmbedHosts = bad
		if g.Validate() == nil || g.ValidateBuild() == nil {
			t.Errorf("EmbedHosts %q accepted", bad)
		}
		if csp := g.ContentSecurityPolicy(); strings.Contains(csp, "x.test") || strings.Contains(csp, "youtube") || strings.Count(csp, "script-src") != 1 {
			t.Errorf("EmbedHosts %q: policy %s", bad, csp)
		}
	}
}
