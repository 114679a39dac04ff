package safe

import "testing"

func TestColor(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"#3B82F6", "red", "rgb(51, 255, 87)", "rgba(51, 87, 255, 0.7)", "hsl(180, 70%, 55%)",
		"oklch(70% 0.2 145)", "lab(50% -20 30 / .5)", "hwb(120deg 10% 20%)"} {
		if Color(ok) != ok {
			t.Errorf("Color(%q) refused", ok)
		}
	}
	for _, bad := range []string{"red; background: url(x)", "oklch(1 2 3); x: y", "url(x)", "expression(alert(1))",
		"rgb(1,2,3)}", "lab(\"x\")", "oklch(var(--x))"} {
		if Color(bad) != "" {
			t.Errorf("Color(%q) accepted", bad)
		}
	}
}
