package mdx

import (
	"strconv"
	"strings"

	"lectern.dev/lectern/render/diag"
)

// The operators, calls and functions of expressions: what components
// written in JavaScript use to build their markup from their props and
// constants (a ? b : c, a || b, a && b, ===, !, +, list.map(x => <li/>),
// Array.isArray, a function of the file called with arguments). They
// are evaluated as JavaScript would, on values only: no assignment, no
// loop, no access to anything but the values of the file and the props.

// evalOps evaluates e when it is an arrow function, an operator
// expression or a call; ok is false when it is none of these.
func (sc *Scope) evalOps(e string, line int, file string, w *diag.Warner, depth int) (Value, bool) {
	if e[0] == '<' {
		return Value{}, false
	}
	if (e[0] == '(' || IsLetter(e[0]) || e[0] == '_' || e[0] == '$') && strings.Contains(e, "=>") {
		if am := arrowHead(e); am != nil {
			return sc.arrow(e, am, line), true
		}
	}
	if !strings.ContainsAny(e, "?|&=!<>+([") {
		return Value{}, false
	}
	ev := func(s string) Value { return sc.evalDepth(s, line, file, w, depth) }
	ops := scanOps(e)
	switch {
	case ops.question >= 0:
		colon := ternaryColon(e, ops.question)
		if colon < 0 {
			return unknown(e), true
		}
		c := ev(e[:ops.question])
		if c.Kind == VUnknown {
			return unknown(e), true
		}
		if c.Truthy() {
			return ev(e[ops.question+1 : colon]), true
		}
		return ev(e[colon+1:]), true
	case ops.or >= 0:
		l := ev(e[:ops.or])
		switch {
		case l.Kind == VUnknown:
			return unknown(e), true
		case ops.orOp == "??" && l.Kind != VUndefined, ops.orOp == "||" && l.Truthy():
			return l, true
		}
		return ev(e[ops.or+2:]), true
	case ops.and >= 0:
		l := ev(e[:ops.and])
		if l.Kind == VUnknown || !l.Truthy() {
			return l, true
		}
		return ev(e[ops.and+2:]), true
	case ops.eq >= 0:
		return compare(ev(e[:ops.eq]), ev(e[ops.eq+len(ops.eqOp):]), ops.eqOp, e), true
	case ops.rel >= 0:
		return compare(ev(e[:ops.rel]), ev(e[ops.rel+len(ops.relOp):]), ops.relOp, e), true
	case ops.plus >= 0:
		l, r := ev(e[:ops.plus]), ev(e[ops.plus+1:])
		if !sc.spend(l.size()+r.size(), line, file, w) {
			return unknown(e), true
		}
		return plus(l, r, e), true
	case e[0] == '!' && !strings.HasPrefix(e, "!="):
		v := ev(e[1:])
		if v.Kind == VUnknown {
			return unknown(e), true
		}
		return Value{Kind: VBool, B: !v.Truthy()}, true
	}
	if callee, args, ok := lastCall(e); ok {
		return sc.call(callee, args, line, file, w, depth), true
	}
	if obj, idx, ok := lastIndex(e); ok {
		return member(ev(obj), ev(idx).Str()), true
	}
	return Value{}, false
}

func unknown(e string) Value { return Value{Kind: VUnknown, S: e} }

// ops are the operators at the top level of an expression: the first ?
// of a conditional, the last of each binary operator (so that operators
// of one precedence group to the left).
type ops struct {
	question, or, and, eq, rel, plus int
	orOp, eqOp, relOp                string
}

func scanOps(e string) ops {
	o := ops{question: -1, or: -1, and: -1, eq: -1, rel: -1, plus: -1}
	skip := 0
	jsWalk(e, 0, func(i, depth int) bool {
		if depth != 0 || i < skip {
			return true
		}
		rest := e[i:]
		switch c := e[i]; {
		case c == '?' && strings.HasPrefix(rest, "??"):
			o.or, o.orOp, skip = i, "??", i+2
		case c == '?' && strings.HasPrefix(rest, "?.") && !(len(rest) > 2 && '0' <= rest[2] && rest[2] <= '9'):
			skip = i + 2
		case c == '?':
			if o.question < 0 {
				o.question = i
			}
		case strings.HasPrefix(rest, "||"):
			o.or, o.orOp, skip = i, "||", i+2
		case strings.HasPrefix(rest, "&&"):
			o.and, skip = i, i+2
		case strings.HasPrefix(rest, "===") || strings.HasPrefix(rest, "!=="):
			o.eq, o.eqOp, skip = i, rest[:3], i+3
		case strings.HasPrefix(rest, "==") || strings.HasPrefix(rest, "!="):
			o.eq, o.eqOp, skip = i, rest[:2], i+2
		case strings.HasPrefix(rest, "=>"):
			skip = i + 2
		case (c == '<' || c == '>') && i > 0 && e[i-1] == ' ':
			op := string(c)
			if strings.HasPrefix(rest[1:], "=") {
				op += "="
			}
			if strings.HasPrefix(rest[len(op):], " ") {
				o.rel, o.relOp = i, op
			}
			skip = i + len(op)
		case c == '+' && i > 0 && !strings.HasPrefix(rest, "++") && !strings.HasPrefix(rest, "+=") && operandBefore(e[:i]):
			o.plus = i
		}
		return true
	})
	return o
}

// operandBefore reports whether s ends with an operand, so that a + after
// it adds rather than being a sign.
func operandBefore(s string) bool {
	s = strings.TrimRight(s, " \t\n")
	return s != "" && (isNameByte(s[len(s)-1]) || strings.IndexByte(")]}\"'`", s[len(s)-1]) >= 0)
}

// ternaryColon returns the : of the conditional whose ? is at q, or -1.
func ternaryColon(e string, q int) int {
	n, at, skip := 0, -1, 0
	jsWalk(e, q+1, func(i, depth int) bool {
		if depth != 0 || i < skip {
			return true
		}
		switch {
		case strings.HasPrefix(e[i:], "??") || strings.HasPrefix(e[i:], "?."):
			skip = i + 2
		case e[i] == '?':
			n++
		case e[i] == ':' && n == 0:
			at = i
			return false
		case e[i] == ':':
			n--
		}
		return true
	})
	return at
}

// compare evaluates a === b, !==, ==, !=, <, <=, >, >=.
func compare(a, b Value, op, e string) Value {
	if a.Kind == VUnknown || b.Kind == VUnknown {
		return unknown(e)
	}
	switch op {
	case "===", "==", "!==", "!=":
		eq := equal(a, b, len(op) == 2)
		return Value{Kind: VBool, B: eq == (op[0] == '=')}
	}
	var less, same bool
	fa, errA := strconv.ParseFloat(a.S, 64)
	fb, errB := strconv.ParseFloat(b.S, 64)
	switch {
	case a.Kind == VNumber && b.Kind == VNumber && errA == nil && errB == nil:
		less, same = fa < fb, fa == fb
	case a.Kind == VString && b.Kind == VString:
		less, same = a.S < b.S, a.S == b.S
	default:
		return unknown(e)
	}
	r := map[string]bool{"<": less, "<=": less || same, ">": !less && !same, ">=": !less}[op]
	return Value{Kind: VBool, B: r}
}

// equal compares primitive values; loose also takes null for undefined
// and a number for its string.
func equal(a, b Value, loose bool) bool {
	if a.Kind != b.Kind {
		if loose && (a.Kind == VNumber || a.Kind == VString) && (b.Kind == VNumber || b.Kind == VString) {
			fa, e1 := strconv.ParseFloat(a.S, 64)
			fb, e2 := strconv.ParseFloat(b.S, 64)
			return e1 == nil && e2 == nil && fa == fb
		}
		return false
	}
	switch a.Kind {
	case VUndefined:
		return true
	case VBool:
		return a.B == b.B
	case VNumber:
		fa, _ := strconv.ParseFloat(a.S, 64)
		fb, _ := strconv.ParseFloat(b.S, 64)
		return fa == fb
	case VString:
		return a.S == b.S
	}
	return false
}

// plus evaluates a + b: numbers add, anything else joins as text.
func plus(a, b Value, e string) Value {
	if a.Kind == VUnknown || b.Kind == VUnknown || a.Kind == VNodes || b.Kind == VNodes {
		return unknown(e)
	}
	if a.Kind == VNumber && b.Kind == VNumber {
		fa, _ := strconv.ParseFloat(a.S, 64)
		fb, _ := strconv.ParseFloat(b.S, 64)
		return Value{Kind: VNumber, S: strconv.FormatFloat(fa+fb, 'f', -1, 64)}
	}
	return Value{Kind: VString, S: text(a) + text(b)}
}

// text is a value as JavaScript turns it into a string.
func text(v Value) string {
	switch v.Kind {
	case VBool:
		return strconv.FormatBool(v.B)
	case VUndefined:
		return "undefined"
	}
	return v.Str()
}

// lastCall splits e, a call "callee(args)", at its last top-level
// parentheses.
func lastCall(e string) (callee, args string, ok bool) {
	callee, args, ok = lastGroup(e, '(', ')')
	return strings.TrimSpace(callee), args, ok
}

// lastIndex splits e, "obj[idx]", at its last top-level brackets.
func lastIndex(e string) (obj, idx string, ok bool) {
	return lastGroup(e, '[', ']')
}

// lastGroup splits e, which ends with a group of brackets open…close
// after something, into what comes before the group and what it holds.
func lastGroup(e string, open, close byte) (before, inside string, ok bool) {
	if e == "" || e[len(e)-1] != close {
		return "", "", false
	}
	at := -1
	jsWalk(e, 0, func(i, depth int) bool {
		if depth == 0 && e[i] == open {
			at = i
		}
		return true
	})
	if at <= 0 || matchEnd(e, at) != len(e) {
		return "", "", false
	}
	return e[:at], e[at+1 : len(e)-1], true
}

// member returns v.key: an object's field, an array's item or length, a
// string's length.
func member(v Value, key string) Value {
	switch v.Kind {
	case VArray:
		if key == "length" {
			return Value{Kind: VNumber, S: strconv.Itoa(len(v.Items))}
		}
		if n, err := strconv.Atoi(key); err == nil && n >= 0 && n < len(v.Items) {
			return v.Items[n]
		}
		return Value{}
	case VString:
		if key == "length" {
			return Value{Kind: VNumber, S: strconv.Itoa(utf16Len(v.S))}
		}
		return Value{}
	case VUnknown:
		return v
	}
	return v.Field(key)
}

// utf16Len is the length of s as JavaScript counts it, in UTF-16 code
// units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
