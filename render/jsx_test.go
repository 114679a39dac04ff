package render

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// jsxSnippet is a .jsx module of components written the ways docs
// repositories write them: block bodies with constants and early returns,
// maps over arrays from a function of the file, conditionals, function
// declarations, a default export, and components that need JavaScript to
// run (state, effects).
const jsxSnippet = `-- snippets/support.jsx --
// Which clients support which method.
export const methods = () => {
  return [
    { name: "start", web: "1.2.0", ios: "1.0.0" },
    { name: "stop", web: "1.0.0", deprecated: true },
  ];
};

const columns = ["", "Web", "iOS"];

export const SupportTable = (rows) => {
  const headers = columns;

  if (!rows || !rows.rows || !Array.isArray(rows.rows)) {
    return <div>Error: Invalid rows data</div>;
  }

  return (
    <table className="support">
      <tr>
        {headers.map((header) => (
          <th key={header}>{header}</th>
        ))}
      </tr>
      {rows.rows.map((entry) => (
        <tr key={entry.name}>
          <td>{entry.name}() {entry.deprecated ? "(deprecated)" : ""}</td>
          <td className={entry.web ? "yes" : "no"}>{entry.web || "-"}</td>
          <td className={entry.ios ? "yes" : "no"}>{entry.ios || "-"}</td>
        </tr>
      ))}
    </table>
  );
};

export function Greeting({ name = "world", title: heading, children }) {
  const shout = name.toUpperCase();
  if (heading) return <h3>{heading}: {shout}</h3>;
  return <p className="greeting">Hello, {shout}! {children}</p>;
}

export const Counter = () => {
  const [count, setCount] = useState(0);
  return <button onClick={() => setCount(count + 1)}>Clicked {count} times</button>;
};

export const Widget = () => {
  useEffect(() => { document.title = "x"; }, []);
  return <div />;
};

function Banner({ text }) {
  return <div className="banner">{text}</div>;
}

export default Banner;
`

func TestJSXSnippets(t *testing.T) {
	t.Parallel()
	src := "import { methods, SupportTable, Greeting, Counter, Widget } from \"/snippets/support.jsx\";\n" +
		"import Banner from \"/snippets/support.jsx\";\n\n" +
		"export const version = \"2.1\";\n" +
		"export const Hero = ({ title, href }) => {\n  const label = `Go to ${title}`;\n  return (\n    <a className=\"hero\" href={href}>{label}</a>\n  );\n};\n\n" +
		"Version {version}.\n\n<SupportTable rows={methods()} />\n\n<Greeting name=\"ada\">Welcome.</Greeting>\n\n" +
		"<Greeting title=\"Hi\" />\n\n<Hero title=\"Docs\" href=\"#top\" />\n\n<Banner text=\"Hi there\" />\n\n" +
		"## Counter\n\n<Counter />\n\nSee <Widget /> inline.\n"
	got, ws := renderIndex(t, src, jsxSnippet)
	for _, want := range []string{
		`<p>Version 2.1.</p>`,
		`<table class="support"><tr><th></th><th>Web</th><th>iOS</th></tr>` +
			`<tr><td>start() </td><td class="yes">1.2.0</td><td class="yes">1.0.0</td></tr>` +
			`<tr><td>stop() (deprecated)</td><td class="yes">1.0.0</td><td class="no">-</td></tr></table>`,
		`<p class="greeting">Hello, ADA! Welcome.</p>`,
		`<h3>Hi: WORLD</h3>`,
		`<a class="hero" href="#top">Go to Docs</a>`,
		`<div class="banner">Hi there</div>`,
		// Never a silent gap: a visible note where the component would be.
		`<h2 id="counter">Counter</h2>` + "\n" +
			`<div class="lc-placeholder" role="note">Interactive component <code>Counter</code> is not available in this version of the docs.</div>`,
		`See <span class="lc-placeholder" role="note">Interactive component <code>Widget</code> is not available in this version of the docs.</span> inline.`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	if strings.Contains(got, "onClick") || strings.Contains(got, "useState") {
		t.Errorf("script of a component reached the page:\n%s", got)
	}
	wt := warningsText(ws)
	for _, want := range []string{
		"index.mdx:26: <Counter> (defined in snippets/support.jsx:42) needs JavaScript to run, which Lectern does not do (useState(0))",
		"index.mdx:28: <Widget> (defined in snippets/support.jsx:47) needs JavaScript to run, which Lectern does not do (the statement useEffect",
	} {
		if !strings.Contains(wt, want) {
			t.Errorf("warnings lack %q:\n%s", want, wt)
		}
	}
	if n := len(ws); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, wt)
	}
}

// TestJSXImportContainment checks that a .jsx import is resolved inside the
// repository only, as .mdx imports are.
func TestJSXImportContainment(t *testing.T) {
	t.Parallel()
	src := "import { X } from \"../../../../etc/passwd.jsx\";\nimport Y from \"/snippets/missing.jsx\";\n\n<X />\n\n<Y />\n"
	_, ws := renderIndex(t, src, "")
	wt := warningsText(ws)
	for _, want := range []string{`cannot import "../../../../etc/passwd.jsx": file not found`, `cannot import "/snippets/missing.jsx": file not found`} {
		if !strings.Contains(wt, want) {
			t.Errorf("warnings lack %q:\n%s", want, wt)
		}
	}
}

// TestJSXEvaluationBounded checks that components that call each other
// without end, or map over huge arrays, stop within the page's budget with
// a placeholder rather than exhausting the build.
func TestJSXEvaluationBounded(t *testing.T) {
	t.Parallel()
	snippet := "-- snippets/loop.jsx --\n" +
		"export const f = (n) => f(n);\n" +
		"export const Loop = () => { return <p>{f(1)}</p>; };\n" +
		"const big = [" + strings.Repeat("1,", 5000) + "1];\n" +
		"export const Wide = () => (<ul>{big.map((a) => big.map((b) => <li>{a}</li>))}</ul>);\n"
	got, ws := renderIndex(t, "import { Loop, Wide } from \"/snippets/loop.jsx\";\n\n<Loop />\n\n<Wide />\n", snippet)
	if len(got) > 1<<20 {
		t.Errorf("page of %d bytes", len(got))
	}
	if !strings.Contains(warningsText(ws), "cannot evaluate") {
		t.Errorf("no warning for the endless call:\n%s", warningsText(ws))
	}
}

// TestJSXValuesBounded checks that a few lines of JavaScript cannot build
// values exponential in their length, each step doubling what the last
// built (a string added to itself, an array holding the last one several
// times, JSX holding the last JSX twice), whether they are rendered,
// joined or added: the page's budget ends them with one warning, in a
// fraction of a second and a page of bounded size.
func TestJSXValuesBounded(t *testing.T) {
	t.Parallel()
	steps := func(first, next string, n int) string {
		var b strings.Builder
		b.WriteString("  const v0 = " + first + ";\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "  const v%d = %s;\n", i, strings.ReplaceAll(next, "PREV", fmt.Sprintf("v%d", i-1)))
		}
		return b.String()
	}
	for name, body := range map[string]string{
		"strings":         steps(`"xxxxxxxx"`, "PREV + PREV", 40) + "  return <p>{v40.length}</p>;",
		"templates":       steps(`"xxxxxxxx"`, "`${PREV}${PREV}`", 40) + "  return <p>{v40}</p>;",
		"arrays":          steps("[1, 1, 1, 1]", "[PREV, PREV, PREV, PREV]", 30) + "  return <p>{v30}</p>;",
		"arrays joined":   steps("[1, 1, 1, 1]", "[PREV, PREV, PREV, PREV]", 30) + "  return <p>{v30.join('-')}</p>;",
		"arrays as text":  steps("[1, 1, 1, 1]", "[PREV, PREV, PREV, PREV]", 30) + "  return <p>{String(v30)}</p>;",
		"joined by text":  steps(`"xxxxxxxx"`, "[PREV, PREV].join(PREV)", 30) + "  return <p>{v30}</p>;",
		"JSX":             steps("<i>x</i>", "<b>{PREV}{PREV}</b>", 40) + "  return v40;",
		"JSX in an array": steps("<i>x</i>", "[PREV, PREV, PREV]", 30) + "  return <div>{v30}</div>;",
	} {
		start := time.Now()
		got, ws := renderIndex(t, "export const Big = () => {\n"+body+"\n};\n\n<Big />\n", "")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v", name, d)
		}
		if len(got) > 4<<20 {
			t.Errorf("%s: a page of %d bytes", name, len(got))
		}
		if wt := warningsText(ws); !strings.Contains(wt, "the expressions of this page take more work to evaluate than a page may spend") {
			t.Errorf("%s: no warning of the budget:\n%s", name, wt)
		}
	}
}

// TestJSXBudgetOfDescriptions checks that the expressions of text from
// elsewhere, an OpenAPI description, are charged to the page's budget as
// the page's own are, rather than each to a budget of its own.
func TestJSXBudgetOfDescriptions(t *testing.T) {
	t.Parallel()
	var burn strings.Builder
	burn.WriteString("export const burn = () => {\n  const v0 = \"xxxxxxxxxxxxxxxx\";\n")
	for i := 1; i <= 19; i++ { // half a budget: within one, not two
		fmt.Fprintf(&burn, "  const v%d = v%d + v%d;\n", i, i-1, i-1)
	}
	burn.WriteString("  return \"red\";\n};\n")
	desc := strings.Repeat(`<Badge color={burn()}>b</Badge> `, 8)
	res, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n"+
		"-- spec.json --\n"+`{"openapi": "3.0.0", "info": {"title": "T", "version": "1"}, "paths": {"/x": {"get": {"description": "`+desc+`", "responses": {"200": {"description": "ok"}}}}}}`+"\n"+
		"-- index.mdx --\n---\nopenapi: \"spec.json GET /x\"\n---\n"+burn.String(), Options{})
	if n := strings.Count(out.get(t, "index.html"), "lc-badge-red"); n > 1 {
		t.Errorf("%d badges evaluated burn(), each within a budget of its own; want at most 1 (%s)", n, warningsText(res.Warnings))
	}
}
