package diag

import "testing"

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
