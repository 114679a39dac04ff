package mdx

import (
	"testing"

	"lectern.dev/lectern/render/diag"
)

// TestParenthesesUnwrap checks that parentheses around a whole expression
// are unwrapped however deep, and that two parenthesised parts side by
// side are not taken for one.
func TestParenthesesUnwrap(t *testing.T) {
	sc := &Scope{Vars: map[string]Value{"a": {Kind: VString, S: "A"}}}
	for _, c := range []struct {
		src  string
		ok   bool
		want string
	}{
		{"(a)", true, "A"},
		{"((a))", true, "A"},
		{"(((\"x\")))", true, "x"},
		{"(a)(b)", false, ""},
		{"(a) + (a)", false, ""},
	} {
		w := &diag.Warner{}
		v := sc.Eval(c.src, 1, "p.mdx", w)
		if got := v.Kind == VString && v.S == c.want; got != c.ok {
			t.Errorf("Eval(%s) = %+v (warnings %v), want evaluated %v to %q", c.src, v, w.List(), c.ok, c.want)
		}
	}
}
