package page

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestFileRefs(t *testing.T) {
	body := "Run [the script](/scripts/setup.py?x=1#top) or <a href=\"tools/run.sh\">this</a>,\n" +
		"see [the guide](/guides/x), ![a picture](/images/a.png), [a page](other.mdx),\n" +
		"<Card href={\"/files/data.parquet\"} />, [external](https://example.com/x.py), [again](/scripts/setup.py).\n"
	got := FileRefs(body)
	want := []string{"/scripts/setup.py", "tools/run.sh", "/files/data.parquet"}
	if !slices.Equal(got, want) {
		t.Errorf("FileRefs = %q, want %q", got, want)
	}
	many := strings.Repeat("[x](a.py) ", 10) + strings.Repeat("[y](/b/c.sh) ", 3)
	if got := FileRefs(many); len(got) != 2 {
		t.Errorf("FileRefs repeats a reference: %q", got)
	}
}

// fileRefsRE is what FileRefs reads, as a regular expression: the
// reference the fuzz target compares it with (the expression itself took
// a tenth of a build's time).
var fileRefsRE = regexp.MustCompile(`(?:\]\(\s*<?|\b(?:href|src)=\{?\s*["'])([^\s"'()<>{}]+)`)

func FuzzFileRefs(f *testing.F) {
	for _, s := range []string{"[a](b.py)", `<a href="x.sh">`, `src={"/y.bin"}`, "](<z.tar?x#y>)", "]( "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		refs := FileRefs(body)
		var want []string
		for _, m := range fileRefsRE.FindAllStringSubmatch(body, -1) {
			if ref, ok := fileRef(m[1]); ok && !slices.Contains(want, ref) && len(want) < maxFileRefs {
				want = append(want, ref)
			}
		}
		if !slices.Equal(refs, want) {
			t.Fatalf("FileRefs(%q) = %q; the expression finds %q", body, refs, want)
		}
		if len(refs) > maxFileRefs {
			t.Fatalf("%d references", len(refs))
		}
		for _, r := range refs {
			if r == "" || strings.ContainsAny(r, "?# \"'") || !strings.Contains(body, r) {
				t.Fatalf("reference %q of %q", r, body)
			}
		}
	})
}
