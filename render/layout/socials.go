package layout

import (
	"html/template"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/icons"
)

// socialNames are display names of footer.socials keys.
var socialNames = map[string]string{
	"github": "GitHub", "x": "X", "x-twitter": "X", "twitter": "Twitter", "linkedin": "LinkedIn", "youtube": "YouTube",
	"discord": "Discord", "slack": "Slack", "facebook": "Facebook", "instagram": "Instagram",
	"website": "Website", "earth-americas": "Website", "medium": "Medium", "telegram": "Telegram", "reddit": "Reddit",
	"bluesky": "Bluesky", "threads": "Threads", "hacker-news": "Hacker News", "podcast": "Podcast",
	"mastodon": "Mastodon", "whatsapp": "WhatsApp", "tiktok": "TikTok", "twitch": "Twitch",
}

// socialIcons maps the footer.socials keys whose icon has another name
// (render/icons) to that name. Twitter is X now: its key shows X's logo.
var socialIcons = map[string]string{
	"x": "x-twitter", "twitter": "x-twitter", "website": "globe", "earth-americas": "earth",
}

func socialLabel(key string) string {
	if n, ok := socialNames[strings.ToLower(key)]; ok {
		return n
	}
	return config.Humanize(key)
}

// socialIcon returns the inline SVG of a footer.socials key, or "" when no
// bundled icon matches it (the link then shows its label).
func socialIcon(key string) template.HTML {
	k := strings.ToLower(strings.TrimSpace(key))
	if alt, ok := socialIcons[k]; ok {
		k = alt
	}
	if k == "" || icons.IsPath(k) {
		return ""
	}
	return template.HTML(icons.SVG(k, 0, ""))
}

// socialView is what a footer.socials link shows besides its URL.
type socialView struct {
	label, icon string
	iconHTML    template.HTML
}

// socialViews returns the labels and icons of links (the configuration's
// footer.socials), which do not depend on the page: New computes them
// once per build.
func socialViews(links []config.Link) []socialView {
	views := make([]socialView, len(links))
	for i, l := range links {
		views[i] = socialView{label: socialLabel(l.Label), icon: strings.ToLower(l.Label), iconHTML: socialIcon(l.Label)}
	}
	return views
}

// socials returns the footer's social links for the output file outName:
// an icon each, with the network's name as the accessible label.
func (t *Theme) socials(outName string) []linkView {
	out := t.links(outName, t.s.Config.FooterLinks)
	for i := range out {
		v := t.socialViews[i]
		out[i].Label, out[i].Icon, out[i].IconHTML = v.label, v.icon, v.iconHTML
	}
	return out
}
