package config

import (
	"net/url"
	"strings"
)

// Button is the navbar's primary button (docs.json navbar.primary,
// mint.json topbarCtaButton).
type Button struct {
	// Type is "button", "github" (a GitHub icon before the label) or
	// "discord" (a Discord icon).
	Type  string
	Label string
	Href  string
}

// parseButton reads the primary button at v (what names it in warnings):
// nil without a button or without an href. A GitHub button without a
// label shows the repository's name, a Discord one "Discord".
func parseButton(v any, what string, cw *cfgWarner) *Button {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			cw.warn(Str(v), "%s must be an object with type, label and href; ignored", what)
		}
		return nil
	}
	b := &Button{Type: strings.ToLower(Str(m["type"])), Label: Str(m["label"]), Href: Str(m["href"])}
	if b.Label == "" {
		b.Label = Str(m["name"]) // mint.json
	}
	if b.Href == "" {
		b.Href = Str(m["url"]) // mint.json
	}
	if b.Href == "" {
		cw.warn(b.Label, "%s has no href; no button is shown", what)
		return nil
	}
	switch b.Type {
	case "", "button", "link":
		b.Type = "button"
	case "github", "discord":
	default:
		cw.warn(Str(m["type"]), "%s.type %q is not button, github or discord; shown as a button", what, Str(m["type"]))
		b.Type = "button"
	}
	if b.Label == "" {
		switch b.Type {
		case "github":
			b.Label = githubRepoName(b.Href)
		case "discord":
			b.Label = "Discord"
		default:
			b.Label = b.Href
		}
	}
	return b
}

// githubRepoName returns the repository's name of a GitHub URL
// ("https://github.com/org/repo" → "repo"), or "GitHub".
func githubRepoName(href string) string {
	u, err := url.Parse(href)
	if err != nil || !strings.EqualFold(strings.TrimPrefix(u.Hostname(), "www."), "github.com") {
		return "GitHub"
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) >= 2 && parts[1] != "" {
		return strings.TrimSuffix(parts[1], ".git")
	}
	return "GitHub"
}
