package diag

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWarningString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		w    Warning
		want string
	}{
		{Warning{"a.mdx", 3, "bad"}, "a.mdx:3: bad"},
		{Warning{"docs.json", 0, "bad"}, "docs.json: bad"},
		{Warning{"", 0, "bad"}, "bad"},
	} {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.w, got, tt.want)
		}
	}
}

func TestWarnerBoundsMessages(t *testing.T) {
	t.Parallel()
	var w Warner
	w.Add("a.mdx", 1, "broken link %q", strings.Repeat("é", 10000))
	if got := w.List()[0].Message; len(got) > maxMessage+len("…") || !strings.HasPrefix(got, `broken link "é`) || !utf8.ValidString(got) {
		t.Errorf("message of %d bytes (valid UTF-8 %t): %.60s", len(got), utf8.ValidString(got), got)
	}
}

func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one\ntwo", 10, "one"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: never cut in half
	} {
		if got := FirstLine(c.in, c.n); got != c.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
