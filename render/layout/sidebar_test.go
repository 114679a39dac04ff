package layout

import (
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/render/config"
)

// sideNavRE finds the sidebar's lists in a page.
var sideNavRE = regexp.MustCompile(`(?s)<nav class="lc-sidebar" id="sidebar" aria-label="Documentation">\n(.*?)\n</nav>\n<main`)

// TestHiddenPageSidebarNotShared checks that the sidebar cache holds one
// sidebar per section: the variants of hidden pages are not kept in it.
func TestHiddenPageSidebarNotShared(t *testing.T) {
	t.Parallel()
	th := testTheme(t, readArchive(t, "hidden-pages.txtar"), Split{})
	for _, p := range th.s.Order {
		th.Page(p, p.Path+".html", "", nil)
	}
	if n := len(th.sidebars.m); n != 2 {
		t.Errorf("%d sidebars rendered for the cache, want 2 (one per tab)", n)
	}
	for key, sb := range th.sidebars.m {
		if strings.Contains(sb.html, "secret") || strings.Contains(sb.html, "internal") || strings.Contains(sb.html, "only-hidden") {
			t.Errorf("the shared sidebar of %s lists a hidden page:\n%s", key.root.Label, sb.html)
		}
	}
}

// TestSidebarSplitCountsHiddenPages checks that hidden pages count
// towards the threshold: each would otherwise render the whole section
// for itself.
func TestSidebarSplitCountsHiddenPages(t *testing.T) {
	t.Parallel()
	archive := "-- docs.json --\n{\"navigation\": {\"groups\": [{\"group\": \"G\", \"pages\": [\"index\", \"h1\", \"h2\", \"h3\", \"h4\", \"h5\"]}]}}\n-- index.mdx --\n# Home\n"
	for i := 1; i <= 5; i++ {
		archive += "-- h" + string(rune('0'+i)) + ".mdx --\n---\ntitle: H" + string(rune('0'+i)) + "\nhidden: true\n---\nx\n"
	}
	th := testTheme(t, archive, Split{Min: 4, Group: 1, Window: 1})
	var h3 string
	for _, p := range th.s.Order {
		data := string(th.Page(p, p.Path+".html", "", nil))
		if p.Path == "h3" {
			m := sideNavRE.FindStringSubmatch(data)
			if m == nil {
				t.Fatalf("no sidebar in h3.html:\n%s", data)
			}
			h3 = m[1]
		}
	}
	if w := th.sidebars.navs[th.s.Config.Nav]; w == nil {
		t.Errorf("a section of 1 page and 5 hidden ones is not split with a threshold of 4")
	}
	// Its part (a window of 1 entry) is the whole section: the full
	// sidebar, with the hidden page.
	want := `<div class="lc-nav-section"><p class="lc-nav-heading">G</p><ul class="lc-nav-list"><li><a href="/">Home</a></li><li><a href="/h3" class="lc-active" aria-current="page">H3</a></li></ul></div>
`
	if h3 != want {
		t.Errorf("h3.html sidebar:\n%s\nwant:\n%s", h3, want)
	}
}

// TestSocialIcons checks that every footer.socials key Mintlify accepts
// has an icon and a label.
func TestSocialIcons(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"x", "website", "facebook", "youtube", "discord", "slack", "github", "linkedin", "instagram",
		"hacker-news", "medium", "telegram", "twitter", "x-twitter", "earth-americas", "bluesky", "threads", "reddit", "podcast"} {
		if socialIcon(key) == "" {
			t.Errorf("footer.socials key %q has no icon", key)
		}
		if l := socialLabel(key); l == "" || strings.Contains(l, "-") {
			t.Errorf("footer.socials key %q: label %q", key, l)
		}
	}
}

// TestSidebarSplitMethodBadge checks that the part of a split sidebar
// shows the method badges of API pages as the full sidebar does.
func TestSidebarSplitMethodBadge(t *testing.T) {
	t.Parallel()
	archive := "-- docs.json --\n{\"navigation\": {\"groups\": [{\"group\": \"G\", \"pages\": [\"index\", \"get\", \"hook\"]}, {\"group\": \"H\", \"pages\": [\"other\"]}]}}\n" +
		"-- index.mdx --\n# Home\n-- other.mdx --\n# Other\n" +
		"-- get.mdx --\n---\ntitle: List\nopenapi: GET /plants\n---\nx\n-- hook.mdx --\n---\ntitle: Hook\napi: WEBHOOK plant.created\n---\nx\n"
	sidebar := func(sp Split) string {
		th := testTheme(t, archive, sp)
		m := sideNavRE.FindStringSubmatch(string(th.Page(th.s.Pages["index"], "index.html", "", nil)))
		if m == nil {
			t.Fatal("no sidebar in index.html")
		}
		return m[1]
	}
	full, split := sidebar(Split{}), sidebar(Split{Min: 1})
	if !strings.Contains(split, `<span class="lc-nav-method lc-nav-method-get">GET</span>List`) ||
		!strings.Contains(split, `<span class="lc-nav-method lc-nav-method-webhook">HOOK</span>Hook`) {
		t.Errorf("split sidebar without the method badges:\n%s", split)
	}
	head, part, ok := strings.Cut(split, "\n")
	if !ok || !strings.HasPrefix(head, `<div class="lc-nav-part"`) || !strings.HasSuffix(part, "</div>") {
		t.Fatalf("split sidebar is not a part:\n%s", split)
	}
	if part = strings.TrimSuffix(part, "</div>"); !strings.HasPrefix(full, part) || strings.Contains(part, "Other") {
		t.Errorf("full sidebar:\n%s\npart:\n%s", full, part)
	}
}

// slug is a navigation file's name for the label s, as navIDs makes it:
// s in lower case, its runs of characters other than ASCII letters and
// digits as one "-", at most 48 bytes, with "n" after a last run of 8 or
// more hexadecimal digits (a name such as "v-1a2b3c4d.js" reads as a
// hashed file to servers that cache those for good).
func slug(s string) string { return unhashed(asciiSlug(s)) }

// TestSlug checks the names of navigation files: lower-case letters,
// digits and single dashes, at most 48 bytes (and "n"), never ending
// in what servers take for a content hash.
func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"API / Reference":       "api-reference",
		"  v2  Guides! ":        "v2-guides",
		"中文":                    "",
		"Über uns":              "ber-uns",
		"v 3f2a9c1d":            "v-3f2a9c1dn",
		"build 1234567":         "build-1234567",
		strings.Repeat("x", 60): strings.Repeat("x", 48),
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNavIDsDistinct checks that the navigation files of sections of one
// name, and of names that look like the numbered ones, are distinct: many
// sections of one name (a docs.json of thousands of tabs "Same") are
// named in as many tries.
func TestNavIDsDistinct(t *testing.T) {
	t.Parallel()
	root := &config.Nav{Kind: config.NavRoot}
	labels := []string{"Same 3", "Site"}
	for range 20000 {
		labels = append(labels, "Same")
	}
	labels = append(labels, "Same 2", "", "")
	for _, l := range labels {
		root.Children = append(root.Children, &config.Nav{Kind: config.NavTab, Label: l})
	}
	ids := navIDs(root)
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("two sections named %q", id)
		}
		seen[id] = true
	}
	c := root.Children
	for i, want := range map[int]string{0: "same-3", 1: "site-2", 2: "same", 3: "same-2", 4: "same-4", 20001: "same-20001", 20002: "same-2-2", 20003: "section", 20004: "section-2"} {
		if got := ids[c[i]]; got != want {
			t.Errorf("section %d (%q): %q, want %q", i, c[i].Label, got, want)
		}
	}
	if ids[root] != "site" {
		t.Errorf("root: %q, want site", ids[root])
	}
}

// TestSidebarSplitCountsNestedGroups checks that the groups inside a
// group count towards the largest group a page shows whole: a group of
// four pages, each in a group of its own, is eight entries of a part.
func TestSidebarSplitCountsNestedGroups(t *testing.T) {
	t.Parallel()
	nested := func(name string) string {
		return `{"group": "N` + name + `", "pages": ["` + name + `"]}`
	}
	archive := "-- docs.json --\n{\"navigation\": {\"groups\": [{\"group\": \"G\", \"pages\": [" +
		nested("p1") + "," + nested("p2") + "," + nested("p3") + "," + nested("p4") + "]}, {\"group\": \"H\", \"pages\": [\"q1\"]}]}}\n"
	for _, p := range []string{"p1", "p2", "p3", "p4", "q1"} {
		archive += "-- " + p + ".mdx --\n---\ntitle: T" + p + "\n---\nx\n"
	}
	for _, c := range []struct {
		group int
		want  []string // the pages p1.html's part shows
	}{
		{8, []string{"Tp1", "Tp2", "Tp3", "Tp4"}}, // four pages and four groups: whole
		{7, []string{"Tp1"}},                      // more than 7: its own group
	} {
		th := testTheme(t, archive, Split{Min: 4, Group: c.group, Window: 2})
		var part string
		for _, p := range th.s.Order {
			if p.Path == "p1" {
				part = string(th.Page(p, p.Path+".html", "", nil))
			}
		}
		m := sideNavRE.FindStringSubmatch(part)
		if m == nil || !strings.Contains(m[1], "lc-nav-part") {
			t.Fatalf("Group %d: no split sidebar in p1.html:\n%s", c.group, part)
		}
		var got []string
		for _, title := range []string{"Tp1", "Tp2", "Tp3", "Tp4", "Tq1"} {
			if strings.Contains(m[1], ">"+title+"<") {
				got = append(got, title)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("Group %d: p1.html's part shows %v, want %v:\n%s", c.group, got, c.want, m[1])
		}
	}
}
