package components

import (
	"cmp"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/mdx"
)

// Media on other hosts.
//
// Pages load nothing from other hosts, so an <iframe>, <video> or <audio>
// whose source is on another host is not shown as such. In its place the
// page has a poster card: a link, opening the media on its host in a new
// tab, that shows a play glyph, the title (the element's title, or the
// provider's name: "YouTube video") and the provider's name. The card
// loads nothing: no remote thumbnail.
//
// A live site's operator may allow embeds from listed hosts
// (features.Site.EmbedHosts, Env.EmbedHosts): an https <iframe> on one of
// them is kept, as Mintlify shows it: a responsive 16:9 frame, sandboxed,
// loaded lazily. The site's Content-Security-Policy lets exactly those
// hosts be framed. Exports never allow any.

// embedSandbox and embedAllow are what an allowed embed may do: run its
// player (scripts, on its own origin), go full screen or picture in
// picture, and open its host in a new tab.
const (
	embedSandbox = "allow-scripts allow-same-origin allow-presentation allow-popups"
	embedAllow   = "fullscreen; picture-in-picture"
)

// remoteMedia returns the source on another host of n, an <iframe>,
// <video> or <audio> element, or of one of its <source> children, or ""
// when it has none.
func (r *Renderer) remoteMedia(name string, n *mdx.Node, sc *mdx.Scope) string {
	if name != "iframe" && name != "video" && name != "audio" {
		return ""
	}
	if s := r.remoteSrc(n, sc); s != "" || name == "iframe" {
		return s
	}
	for _, c := range n.Children {
		if c.Kind == mdx.ElementNode && strings.EqualFold(c.Name, "source") {
			if s := r.remoteSrc(c, sc); s != "" {
				return s
			}
		}
	}
	return ""
}

// remoteSrc returns the src attribute of n when it is an http(s) URL of
// another host. An expression is evaluated without warnings: the element
// is rendered (and warned about) as usual when its source is not remote.
func (r *Renderer) remoteSrc(n *mdx.Node, sc *mdx.Scope) string {
	for _, a := range n.Attrs {
		if a.Name != "src" {
			continue
		}
		v := mdx.Value{Kind: mdx.VString, S: html.UnescapeString(a.Val)}
		switch a.Kind {
		case mdx.AttrBool:
			continue
		case mdx.AttrString:
		default:
			v = sc.Eval(a.Val, n.Line, r.fileOf(sc), &diag.Warner{Mute: 1})
		}
		s := strings.TrimSpace(v.Str())
		if u, ok := remoteURL(s); ok {
			return u.String()
		}
	}
	return ""
}

// remoteURL parses s when it is an absolute http(s) URL with a host (or a
// protocol-relative one, read as https).
func remoteURL(s string) (*url.URL, bool) {
	if strings.HasPrefix(s, "//") {
		s = "https:" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil {
		return nil, false
	}
	if u.Scheme = strings.ToLower(u.Scheme); u.Scheme != "http" && u.Scheme != "https" {
		return nil, false
	}
	return u, true
}

// remoteMediaHTML renders the element name (iframe, video or audio) whose
// source src is on another host: an embed when the host is allowed, else a
// poster card.
func (r *Renderer) remoteMediaHTML(name, src string, n *mdx.Node, sc *mdx.Scope) string {
	props := r.props(n, sc)
	title := strings.TrimSpace(props["title"].Str())
	if title == "" {
		title = strings.TrimSpace(props["aria-label"].Str())
	}
	u, _ := remoteURL(src)
	if name == "iframe" && u.Scheme == "https" && slices.Contains(r.env.EmbedHosts, strings.ToLower(u.Hostname())) && u.Port() == "" {
		if title == "" {
			title = cmp.Or(videoOf(u).title, "Embedded content")
		}
		return `<div class="lc-embed"><iframe src="` + html.EscapeString(u.String()) + `" title="` + html.EscapeString(title) +
			`" sandbox="` + embedSandbox + `" allow="` + embedAllow + `" allowfullscreen loading="lazy" referrerpolicy="strict-origin-when-cross-origin"></iframe></div>`
	}
	return posterCard(name, u, title)
}

// video is what a poster card says of a media URL.
type video struct {
	provider string // "YouTube", or the host
	title    string // the title when the element has none
	watch    string // the URL the card opens
	player   bool   // a video or audio player (play glyph), not another page
}

var mediaIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// videoOf returns what a poster card says of u: for YouTube, Vimeo and
// Loom players, the provider and the page of the video on its host; for
// other URLs, the host, and u itself.
func videoOf(u *url.URL) video {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	parts := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	first, id := parts[0], ""
	if len(parts) > 1 {
		id = parts[1]
	}
	v := video{provider: host, watch: u.String()}
	switch host {
	case "youtube.com", "m.youtube.com", "youtube-nocookie.com", "youtu.be":
		v.provider, v.title, v.player = "YouTube", "YouTube video", true
		switch {
		case host == "youtu.be":
			id = first
		case first == "watch":
			id = u.Query().Get("v")
		case first != "embed" && first != "shorts" && first != "live" && first != "v":
			id = ""
		}
		if mediaIDRE.MatchString(id) {
			v.watch = "https://www.youtube.com/watch?v=" + id
			if t := u.Query().Get("start"); t != "" && strings.Trim(t, "0123456789") == "" && len(t) < 7 {
				v.watch += "&t=" + t + "s"
			}
		}
	case "player.vimeo.com", "vimeo.com":
		v.provider, v.title, v.player = "Vimeo", "Vimeo video", true
		if host == "vimeo.com" {
			id = first
		} else if first != "video" {
			id = ""
		}
		if mediaIDRE.MatchString(id) {
			v.watch = "https://vimeo.com/" + id
			if h := u.Query().Get("h"); mediaIDRE.MatchString(h) {
				v.watch += "/" + h
			}
		}
	case "loom.com":
		v.provider, v.title, v.player = "Loom", "Loom video", true
		if (first == "embed" || first == "share") && mediaIDRE.MatchString(id) {
			v.watch = "https://www.loom.com/share/" + id
		}
	}
	return v
}

// posterCard is the link that stands for the element tag (iframe, video,
// audio) whose source u is on another host.
func posterCard(tag string, u *url.URL, title string) string {
	v := videoOf(u)
	glyph := playGlyph
	switch {
	case tag == "video" || tag == "audio":
		if !v.player {
			v.title = map[string]string{"video": "Video", "audio": "Audio"}[tag]
		}
	case !v.player:
		v.title, glyph = "Embedded content", icons.Lucide.SVG("external-link", "", 26, "")
	}
	if title == "" {
		title = v.title
	}
	return `<a class="lc-media-card" href="` + html.EscapeString(v.watch) + `" target="_blank" rel="noopener noreferrer">` +
		`<span class="lc-media-glyph" aria-hidden="true">` + glyph + `</span>` +
		`<span class="lc-media-text"><span class="lc-media-title">` + html.EscapeString(title) + `</span>` +
		`<span class="lc-media-provider">` + html.EscapeString(v.provider) + `<span class="lc-sr-only"> (opens in a new tab)</span></span></span></a>`
}

// playGlyph is the glyph of the poster cards of players (other pages get
// Lucide's external-link).
const playGlyph = `<svg viewBox="0 0 24 24" width="28" height="28" fill="currentColor"><path d="M8 5.14v13.72a1 1 0 0 0 1.5.86l11-6.86a1 1 0 0 0 0-1.72l-11-6.86A1 1 0 0 0 8 5.14z"/></svg>`
