package mdx

import "strings"

// JSXText applies JSX's whitespace rules to a text child: lines are
// trimmed where they meet a line break, blank lines dropped, and the rest
// joined by spaces. Text on one line is kept as it is.
func JSXText(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	var out []string
	for i, l := range lines {
		if i > 0 {
			l = strings.TrimLeft(l, " \t")
		}
		if i < len(lines)-1 {
			l = strings.TrimRight(l, " \t")
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// Dedent removes the indentation common to all non-blank lines of s
// (except the first when skipFirst, which loses its own), so that the
// Markdown nested in a component is not taken as indented code or
// misplaced lists.
func Dedent(s string, skipFirst bool) string {
	lines := strings.Split(s, "\n")
	common := -1
	for i, l := range lines {
		if (i == 0 && skipFirst) || strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 && !skipFirst {
		return s
	}
	for i, l := range lines {
		switch {
		case i == 0 && skipFirst:
			lines[i] = strings.TrimLeft(l, " \t")
		case len(l) >= common && common > 0:
			lines[i] = l[common:]
		case common > 0:
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// Prop returns the value of the attribute name of n as JSX gives it to
// a component: the last attribute of that name, or key of a spread
// object ({...props}), whichever comes last; undefined when none. eval
// evaluates one attribute (a string, an expression, a spread object).
func (n *Node) Prop(name string, eval func(Attr) Value) Value {
	v := Value{}
	for _, a := range n.Attrs {
		switch {
		case a.Kind == AttrSpread:
			obj := eval(a)
			for i, k := range obj.Keys {
				if k == name {
					v = obj.Items[i]
				}
			}
		case a.Name == name:
			v = eval(a)
		}
	}
	return v
}
