package render

import (
	"html/template"
	"strings"
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
// (icons.go) to that name. Twitter is X now: its key shows X's logo.
var socialIcons = map[string]string{
	"x": "x-twitter", "twitter": "x-twitter", "website": "globe", "earth-americas": "earth",
}

func socialLabel(key string) string {
	if n, ok := socialNames[strings.ToLower(key)]; ok {
		return n
	}
	return humanize(key)
}

// socialIcon returns the inline SVG of a footer.socials key, or "" when no
// bundled icon matches it (the link then shows its label).
func socialIcon(key string) template.HTML {
	k := strings.ToLower(strings.TrimSpace(key))
	if alt, ok := socialIcons[k]; ok {
		k = alt
	}
	if k == "" || isIconPath(k) {
		return ""
	}
	return template.HTML(iconSVG(k, 0, ""))
}

// socials returns the footer's social links for the output file outName:
// an icon each, with the network's name as the accessible label.
func (t *theme) socials(outName string) []linkView {
	out := t.links(outName, t.s.cfg.FooterLinks)
	for i := range out {
		key := out[i].Label
		out[i].Label = socialLabel(key)
		out[i].IconHTML = socialIcon(key)
		out[i].Icon = strings.ToLower(key)
	}
	return out
}
