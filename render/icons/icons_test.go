package icons

import (
	"strings"
	"testing"
)

func TestIconAliasesResolve(t *testing.T) {
	t.Parallel()
	for fa, lucide := range faIcons {
		if lucideIcons()[lucide] == "" {
			t.Errorf("faIcons[%q] = %q, which is not a bundled icon", fa, lucide)
		}
		if brandIcons()[fa] != "" {
			t.Errorf("faIcons[%q] is shadowed by the brand icon of that name", fa)
		}
	}
	for _, n := range []string{"rocket", "code", "terminal", "github", "book-open", "square-pen", "house", "mic", "edit", "help-circle"} {
		if body, _ := lookup(n); body == "" {
			t.Errorf("icon %q missing", n)
		}
	}
	if len(lucideIcons()) < 2000 {
		t.Errorf("only %d icons bundled", len(lucideIcons()))
	}
	if len(lucideData) > 1<<20 {
		t.Errorf("icon data is %d bytes, want under 1 MB", len(lucideData))
	}
	if HTML("/x.svg") != "" || HTML("nope-nope") != "" || !strings.HasPrefix(HTML("rocket"), "<svg") {
		t.Errorf("iconHTML: wrong result")
	}
}

func TestBrandIcons(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"openai", "anthropic", "github", "discord", "x-twitter", "youtube", "google", "apple", "docker", "python", "react", "aws", "whatsapp", "node-js", "hacker-news", "square-github", "fa-brands fa-github"} {
		if body, brand := lookup(n); body == "" || !brand {
			t.Errorf("%q is not a brand icon", n)
		}
	}
	// "x" is Font Awesome's letter X (Lucide's close icon), not the logo.
	if _, brand := lookup("x"); brand {
		t.Errorf(`icon "x" is a brand icon`)
	}
	if b, l := brandIcons()["apple"], lucideIcons()["apple"]; b == "" || l == "" {
		t.Errorf("apple: brand %t, lucide %t", b != "", l != "")
	} else if body, _ := lookup("apple"); body != b {
		t.Errorf(`icon "apple" is not the logo`)
	}
	for name, body := range brandIcons() {
		if strings.ContainsAny(body, "\t\n") || !strings.HasPrefix(body, "<") || strings.Contains(body, "href") ||
			strings.Contains(body, "<script") || strings.Contains(body, "url(") || strings.Contains(body, "stroke") {
			t.Errorf("brand icon %q: unexpected markup %.80s", name, body)
		}
	}
	if n := len(brandIcons()); n < 50 || n > 200 {
		t.Errorf("%d brand icons: want a curated set", n)
	}
}

func BenchmarkIconSVG(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = SVG("rocket", 0, "")
	}
}
