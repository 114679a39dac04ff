package features

import (
	"regexp"
	"slices"
	"strings"

	"lectern.dev/lectern"
)

// Embeds.
//
// A page never loads anything from another host unless the operator of a
// live site allows embeds from listed hosts (Site.EmbedHosts): then an
// https <iframe> on one of those hosts is shown, and the pages' policy has
// "frame-src 'self' https://HOST ..." for exactly them. Exports never have
// any (render.Options clears EmbedHosts when Export is on).

// hostRE matches a DNS host name: dot-separated labels of letters, digits
// and inner hyphens, with at least two labels.
var hostRE = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// maxEmbedHosts bounds the list, which every page's policy carries.
const maxEmbedHosts = 50

// ParseEmbedHosts reads a comma- (or space-) separated list of host names
// whose iframes live pages may show, such as
// "www.youtube.com, player.vimeo.com": each a host name alone (no scheme,
// port, path or wildcard), at most 50. It returns them lower case, without
// duplicates, in the order given, or a *lectern.Error of code EINVALID
// naming the first bad entry.
func ParseEmbedHosts(list string) ([]string, error) {
	var hosts []string
	for _, h := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		h = strings.ToLower(h)
		if err := checkEmbedHost(h); err != nil {
			return nil, err
		}
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) > maxEmbedHosts {
		return nil, lectern.Errorf(lectern.EINVALID, "%d embed hosts: at most %d may be allowed", len(hosts), maxEmbedHosts)
	}
	return hosts, nil
}

// checkEmbedHost says what is wrong with h as an embed host.
func checkEmbedHost(h string) error {
	switch {
	case strings.Contains(h, "://") || strings.HasPrefix(h, "//"):
		return lectern.Errorf(lectern.EINVALID, "embed host %q has a scheme: give the host name alone, like www.youtube.com", h)
	case strings.Contains(h, "*"):
		return lectern.Errorf(lectern.EINVALID, "embed host %q has a wildcard: list each host name, like www.youtube.com and www.youtube-nocookie.com", h)
	case strings.ContainsAny(h, "/?#@:"):
		return lectern.Errorf(lectern.EINVALID, "embed host %q is not a host name: no port, path or user; give it like www.youtube.com", h)
	case !hostRE.MatchString(h) || len(h) > 253:
		return lectern.Errorf(lectern.EINVALID, "embed host %q is not a host name such as www.youtube.com", h)
	}
	return nil
}

// validEmbedHosts checks hosts as Site.EmbedHosts holds them: as
// ParseEmbedHosts returns them.
func validEmbedHosts(hosts []string) error {
	if len(hosts) > maxEmbedHosts {
		return lectern.Errorf(lectern.EINVALID, "%d embed hosts: at most %d may be allowed", len(hosts), maxEmbedHosts)
	}
	for _, h := range hosts {
		if h != strings.ToLower(h) {
			return lectern.Errorf(lectern.EINVALID, "embed host %q must be lower case", h)
		}
		if err := checkEmbedHost(h); err != nil {
			return err
		}
	}
	return nil
}

// frameSrc is the frame-src directive (with its "; ") that allows the
// https origins of EmbedHosts, or "" without any (default-src 'self'
// applies). Hosts that validEmbedHosts refuses are left out.
func (f Site) frameSrc() string {
	if len(f.EmbedHosts) == 0 {
		return ""
	}
	src := []string{"'self'"}
	for _, h := range f.EmbedHosts {
		if checkEmbedHost(h) == nil && h == strings.ToLower(h) && !slices.Contains(src, "https://"+h) {
			src = append(src, "https://"+h)
		}
	}
	return "frame-src " + strings.Join(src, " ") + "; "
}
