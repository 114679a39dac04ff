package mdx

import "lectern.dev/lectern/render/diag"

// Budget bounds the work of evaluating a page's expressions, counted in
// bytes: each expression read is charged its length and exprCost
// (reading one goes over it a few times per level of its nesting, which
// maxExprDepth bounds), each function call callCost, each string built
// its length, and each value Eval hands out its size (Value.size), so
// that a value used again and again, or JSX rendered again and again, is
// paid for each time. Once MaxEvalWork is spent, the page's remaining
// expressions are shown as written, after one warning. Its zero value is
// ready to use.
type Budget struct {
	work, depth int
	spent       bool // the work went over MaxEvalWork (reported once)
	// jsx keeps the parsed JSX of expressions by source, since a map
	// evaluates the same one for every item; values the values of the
	// constants of files, evaluated once for the page.
	jsx    map[string][]*Node
	values map[*Binding]Value
}

const (
	// MaxEvalWork is the work one page may spend evaluating expressions
	// (Budget): far more than any page of real documentation needs, and
	// well under a second of evaluation.
	MaxEvalWork  = 64 << 20
	exprCost     = 64  // an expression read, besides its length
	callCost     = 256 // a function call, besides its body's expressions
	nodeCost     = 256 // a node of JSX handed out, besides its source
	maxCallDepth = 32
	maxJSXCache  = 512
	// sizeCap is where Value.size stops counting: more than any budget,
	// and far from overflowing however values nest.
	sizeCap = 1 << 40
)

// budget returns the Budget of sc's evaluation, nil when none is set.
func (sc *Scope) budget() *Budget {
	for s := sc; s != nil; s = s.Parent {
		if s.Budget != nil {
			return s.Budget
		}
	}
	return nil
}

// spend charges n to the page's Budget. It returns false once the budget
// is spent, after a warning the first time.
func (sc *Scope) spend(n, line int, file string, w *diag.Warner) bool {
	b := sc.budget()
	if b == nil {
		return true
	}
	b.work = min(b.work+n, sizeCap)
	if b.work <= MaxEvalWork {
		return true
	}
	if !b.spent {
		b.spent = true
		w.Add(file, line, "the expressions of this page take more work to evaluate than a page may spend; the rest are shown as written")
	}
	return false
}

// size is what building v as text or rendering it costs: the bytes of
// its strings and source and the items of its arrays and objects, counted
// through nesting as if nothing were shared (an array that holds another
// twice counts it twice), up to sizeCap.
func (v Value) size() int {
	switch v.Kind {
	case VString, VNumber:
		return len(v.S)
	case VArray, VObject:
		if v.n == 0 && len(v.Items) > 0 { // built outside the evaluator
			return sized(v).n
		}
		return v.n
	case VNodes:
		n := 0
		for _, nd := range v.Nodes {
			n += nodeCost + len(nd.Text) + len(nd.Raw)
		}
		return n
	}
	return 0
}

// sized returns v, an array or object, with its size worked out from its
// items.
func sized(v Value) Value {
	n := len(v.Items)
	for _, it := range v.Items {
		n = min(n+it.size(), sizeCap)
	}
	v.n = n
	return v
}
