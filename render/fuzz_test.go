package render

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/page"
)

// Fuzzing the MDX scanner and the front-matter reader: whatever the bytes
// of a page, a build must neither panic nor hang, and must report problems
// as warnings rather than errors. Run the fuzzers with
//
//	go test -run=^$ -fuzz=FuzzMDX -fuzztime=60s ./render
//	go test -run=^$ -fuzz=FuzzFrontMatter -fuzztime=60s ./render
//
// Failing inputs are kept by the fuzzer under testdata/fuzz/<FuzzName>/ and
// are replayed by every plain `go test` run.

// fuzzBound and edgeCaseBound are hang guards, not speed targets: an input
// that takes this long is stuck (quadratic or worse), even on a slow or
// race-instrumented run. The edge-case inputs build in well under a second
// normally; BenchmarkMDXEdgeCases prints their times.
const (
	fuzzBound     = 20 * time.Second
	edgeCaseBound = 20 * time.Second
	// fuzzSeedMax bounds the size of a seed given to the fuzzer.
	fuzzSeedMax = 64 << 10
)

// internalErrorWarning is the start of the warning renderBody writes when
// it recovers from a panic of the components.Renderer: content must never cause one.
const internalErrorWarning = "internal error while rendering"

// mdxSeeds are the tricky inputs the issue names, and a few more.
func mdxSeeds() map[string]string {
	return map[string]string{
		"deep-note":          strings.Repeat("<Note>", 10000) + "x" + strings.Repeat("</Note>", 10000),
		"deep-note-unclosed": strings.Repeat("<Note>\n", 10000),
		"deep-mixed":         strings.Repeat("<Card title=\"a\">\n<Tabs>\n<Tab title=\"t\">\n", 3000),
		"deep-html":          strings.Repeat("<div>", 10000),
		"deep-fragment":      strings.Repeat("<>", 10000),
		"deep-quote":         strings.Repeat("> ", 10000) + "deep",
		"deep-list":          strings.Repeat("- ", 10000) + "x",
		"deep-list-lines":    deepListLines(300),
		"deep-brackets":      strings.Repeat("[", 100000) + "x" + strings.Repeat("]", 100000),
		"deep-expr-array":    "<Card title={" + strings.Repeat("[", 10000) + "1" + strings.Repeat("]", 10000) + "} />",
		"deep-expr-jsx":      "{" + strings.Repeat("<Note>", 5000) + "}",
		"deep-emphasis":      strings.Repeat("*_", 50000) + "x",
		"unclosed-tags":      "<Note>\n<Warning>\n<Card title=\"x\">\n<Accordion title='y'>\n<Steps>\n<Step>\ntext",
		"unclosed-attr":      "<Card title=\"never ends\n\n" + strings.Repeat("x ", 5000),
		"unclosed-open":      strings.Repeat("<Note a={", 5000),
		"unclosed-code":      strings.Repeat("<code>x\n", 5000),
		"unclosed-pre":       strings.Repeat("<pre>", 5000),
		"unclosed-code-1mib": strings.Repeat("<code>x\n", 120000),
		"unclosed-pre-1mib":  strings.Repeat("<pre>", 200000),
		"unclosed-fence":     "```\n" + strings.Repeat("<Note>{\n", 5000),
		"unclosed-comment":   "{/* " + strings.Repeat("<Note>", 5000),
		"unclosed-html-cmt":  "<!-- " + strings.Repeat("{", 5000),
		"brace-storm":        strings.Repeat("{", 100000),
		"brace-storm-lines":  strings.Repeat("{ x\n", 20000),
		"brace-close-storm":  strings.Repeat("}", 100000),
		"brace-mixed":        strings.Repeat("{{}{", 50000),
		"huge-line":          strings.Repeat("word ", 2<<20/5),
		"huge-line-tags":     strings.Repeat("<Badge>b</Badge> ", 2<<20/17),
		"huge-line-lt":       strings.Repeat("<", 2<<20),
		"huge-line-backtick": strings.Repeat("` a ", 2<<20/4),
		"huge-tag":           "<Card " + strings.Repeat("a=\"b\" ", 2<<20/6) + "/>",
		"nul-bytes":          "\x00<Note>\x00{\x00}\x00</Note>\x00" + strings.Repeat("\x00", 10000),
		"invalid-utf8":       "\xff\xfe<Note title=\"\xc3\x28\">\xe2\x28\xa1</Note>{\xf0\x28\x8c\x28}",
		"binary":             binaryBlob(64 << 10),
		"fm-no-end":          "---\ntitle: x\n" + strings.Repeat("a: b\n", 10000),
		"fm-only-dashes":     "---",
		"fm-dashes-newline":  "---\n",
		"fm-bad-yaml":        "---\ntitle: [unclosed\n---\nbody",
		"esm-storm":          strings.Repeat("export const X = () => (\n", 5000),
		"import-storm":       strings.Repeat("import A from './index.mdx'\n", 5000),
		"self-import":        "import Me from '/index.mdx'\n\n<Me />\n",
		"component-recurse":  "export const X = () => (<X />)\n\n<X />\n",
		"crlf":               strings.Repeat("<Note>\r\n", 5000),
	}
}

func deepListLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i))
		b.WriteString("- item\n")
	}
	return b.String()
}

// binaryBlob is deterministic pseudo-random bytes, like an image or an
// archive saved with an .mdx name.
func binaryBlob(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return string(b)
}

// frontMatterSeeds are YAML headers (without the --- lines) that stress
// the front-matter reader.
func frontMatterSeeds() map[string]string {
	return map[string]string{
		"empty":          "",
		"plain":          "title: Hello\ndescription: World\nkeywords: [a, b]\nhidden: true",
		"unclosed-flow":  "title: [unclosed",
		"deep-flow":      "title: " + strings.Repeat("[", 20000),
		"deep-map":       "title: " + strings.Repeat("{a: ", 20000),
		"deep-block":     deepYAMLBlock(2000),
		"aliases":        yamlLaughs(),
		"anchor-cycle":   "a: &a [*a]\ntitle: *a",
		"tabs":           "title:\t\tx\n\tkey: v",
		"huge-scalar":    "title: " + strings.Repeat("x", 2<<20),
		"many-keys":      strings.Repeat("k: v\n", 1500),
		"nul":            "title: \x00\x00",
		"invalid-utf8":   "title: \xff\xfe\xc3\x28",
		"binary":         binaryBlob(16 << 10),
		"dashes-inside":  "title: x\n--- \nmore: y",
		"doc-markers":    "%YAML 1.2\n---\ntitle: x\n...\n",
		"tags":           "title: !!binary aGVsbG8=\nmode: !!int 12\nkeywords: !!set {a, b}",
		"odd-types":      "title: [1, 2]\nkeywords: {a: b}\nhidden: {x: 1}\nnoindex: 2020-01-01",
		"merge-keys":     "base: &b {title: x}\nall:\n  <<: *b\n  <<: [*b, *b]",
		"huge-int":       "title: 1" + strings.Repeat("0", 5000),
		"unclosed-quote": "title: \"" + strings.Repeat("x\n", 5000),
	}
}

func deepYAMLBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i))
		b.WriteString("k:\n")
	}
	return b.String()
}

// yamlLaughs is the "billion laughs" alias expansion.
func yamlLaughs() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(name + ": &" + name + " [")
		for j := range 9 {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	b.WriteString("title: *i\n")
	return b.String()
}

// fuzzSite is a one-page site whose page file is name with content src.
func fuzzSite(name, src string) fstest.MapFS {
	nav := strings.TrimSuffix(strings.TrimSuffix(name, ".mdx"), ".md")
	return fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "Fuzz", "navigation": {"pages": ["` + nav + `"]}}`), Mode: 0o644},
		name:        {Data: []byte(src), Mode: 0o644},
	}
}

// buildOutcome is what boundedBuild learnt.
type buildOutcome struct {
	res      *Result
	err      error
	panicked any
	elapsed  time.Duration
}

// boundedBuild builds the one-page site of src under a context with the
// given timeout, in a goroutine, so that a hang inside a page (where Build
// does not look at its context) still ends the test. It fails t when the
// build does not finish within the bound, panics, returns an error or
// recovers from a components.Renderer panic (an "internal error" warning).
func boundedBuild(t *testing.T, name, src string, bound time.Duration) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	done := make(chan buildOutcome, 1)
	start := time.Now()
	go func() {
		var o buildOutcome
		defer func() {
			o.panicked = recover()
			o.elapsed = time.Since(start)
			done <- o
		}()
		o.res, o.err = Build(ctx, fuzzSite(name, src), newMemOutput(), Options{})
	}()
	var o buildOutcome
	select {
	case o = <-done:
	case <-ctx.Done():
		t.Fatalf("%s (%d bytes, %q…): build did not finish within %v", name, len(src), firstBytes(src, 60), bound)
	}
	switch {
	case o.panicked != nil:
		t.Fatalf("%s (%d bytes, %q…): Build panicked: %v", name, len(src), firstBytes(src, 60), o.panicked)
	case o.err != nil:
		t.Fatalf("%s (%d bytes, %q…): Build returned an error, want warnings only: %v", name, len(src), firstBytes(src, 60), o.err)
	case o.elapsed > bound:
		t.Fatalf("%s: build took %v, more than %v", name, o.elapsed, bound)
	}
	for _, w := range o.res.Warnings {
		if strings.Contains(w.Message, internalErrorWarning) {
			t.Fatalf("%s (%d bytes, %q…): the renderer panicked: %s", name, len(src), firstBytes(src, 60), w)
		}
	}
	return o.res
}

func firstBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// boundedParse runs the MDX scanner alone on src (without renderBody's
// recover, so that a panic of the scanner itself shows), fails t when it
// takes longer than bound, and returns the depth of the tree it produced.
func boundedParse(t *testing.T, src string, isMDX bool, bound time.Duration) int {
	t.Helper()
	type outcome struct {
		depth    int
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panicked = recover()
			done <- o
		}()
		p := mdx.NewParser(page.NormalizeNewlines(src), "index.mdx", 1, isMDX, &diag.Warner{})
		p.ESM = &mdx.ESMSink{}
		nodes, _ := p.ParseFlow(nil)
		o.depth = treeDepth(nodes)
	}()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case o := <-done:
		if o.panicked != nil {
			t.Fatalf("parse (%d bytes, %q…) panicked: %v", len(src), firstBytes(src, 60), o.panicked)
		}
		return o.depth
	case <-timer.C:
		t.Fatalf("parse (%d bytes, %q…) did not finish within %v", len(src), firstBytes(src, 60), bound)
	}
	return 0
}

// treeDepth is the element nesting depth of a node list.
func treeDepth(nodes []*mdx.Node) int {
	d := 0
	for _, n := range nodes {
		if n.Kind == mdx.ElementNode {
			d = max(d, 1+treeDepth(n.Children))
		}
	}
	return d
}

func FuzzMDX(f *testing.F) {
	for _, s := range mdxSeeds() {
		// The huge seeds are run in full by TestMDXEdgeCasesBounded; the
		// fuzzer gets their first 64 KB, which keeps mutation fast.
		f.Add([]byte(firstBytes(s, fuzzSeedMax)), true)
	}
	f.Add([]byte("<Note>\n  **hi** {1+1}\n</Note>\n"), false)
	f.Add([]byte("# Title\n\n<Tabs>\n<Tab title=\"a\">A</Tab>\n<Tab title=\"b\">B</Tab>\n</Tabs>\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, isMDX bool) {
		src := string(data)
		if depth := boundedParse(t, src, isMDX, fuzzBound); depth > mdx.MaxNesting+1 {
			t.Fatalf("parse tree is %d elements deep, more than the bound %d", depth, mdx.MaxNesting)
		}
		name := "index.mdx"
		if !isMDX {
			name = "index.md"
		}
		boundedBuild(t, name, src, fuzzBound)
	})
}

func FuzzFrontMatter(f *testing.F) {
	for _, s := range frontMatterSeeds() {
		f.Add(firstBytes(s, fuzzSeedMax), "Body\n")
	}
	f.Add("title: x", "")
	f.Add("", "---\n")
	f.Fuzz(func(t *testing.T, yml, body string) {
		// The reader alone: split, decode, title; bounded and panic-free.
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			src := "---\n" + yml + "\n---\n" + body
			p := page.Load("index", "index.mdx", src, &diag.Warner{})
			if p.Title == "" {
				panic("page.Load left the title empty")
			}
			if p.BodyLine < 1 {
				panic("page.Load returned a body line below 1")
			}
			// A page that is nothing but a header, and one whose header
			// never ends.
			page.Load("index", "index.mdx", "---\n"+yml, &diag.Warner{})
			page.SplitFrontMatter(yml)
			page.ParseFrontMatter(yml, "index.mdx", &diag.Warner{})
		}()
		timer := time.NewTimer(fuzzBound)
		defer timer.Stop()
		select {
		case v := <-done:
			if v != nil {
				t.Fatalf("front matter %q: panic: %v", firstBytes(yml, 80), v)
			}
		case <-timer.C:
			t.Fatalf("front matter %q: not read within %v", firstBytes(yml, 80), fuzzBound)
		}
		// And through a whole build: warnings, never an error.
		boundedBuild(t, "index.mdx", "---\n"+yml+"\n---\n"+body, fuzzBound)
	})
}

// TestMDXEdgeCasesBounded runs each tricky input of the issue through a
// whole build: each must finish in edgeCaseBound, without an error, a
// panic or an internal-error warning, and the scanner's tree must stay
// within its nesting bound.
func TestMDXEdgeCasesBounded(t *testing.T) {
	t.Parallel()
	for name, src := range mdxSeeds() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if depth := boundedParse(t, src, true, edgeCaseBound); depth > mdx.MaxNesting+1 {
				t.Errorf("parse tree is %d elements deep, more than the bound %d", depth, mdx.MaxNesting)
			}
			start := time.Now()
			res := boundedBuild(t, "index.mdx", src, edgeCaseBound)
			t.Logf("%d bytes: %v, %d warnings", len(src), time.Since(start), len(res.Warnings))
		})
	}
}

// TestMDXEdgeCasesWarn checks that the damaged inputs are reported as
// warnings, not silently accepted.
func TestMDXEdgeCasesWarn(t *testing.T) {
	t.Parallel()
	seeds := mdxSeeds()
	for _, name := range []string{"deep-note", "deep-note-unclosed", "unclosed-tags", "unclosed-open", "unclosed-code",
		"brace-storm", "brace-storm-lines", "unclosed-comment", "esm-storm", "fm-bad-yaml"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := boundedBuild(t, "index.mdx", seeds[name], edgeCaseBound)
			if len(res.Warnings) == 0 {
				t.Errorf("no warning for %s", name)
			}
		})
	}
}

// TestBinaryMDXFile checks that a binary file saved with an .mdx or .md
// name builds, in time, with the page produced.
func TestBinaryMDXFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"index.mdx", "index.md"} {
		for _, size := range []int{1, 512, 64 << 10, 1 << 20} {
			boundedBuild(t, name, binaryBlob(size), edgeCaseBound)
		}
	}
}

// TestFrontMatterEdgeCasesBounded runs each front-matter seed through a
// build: bounded, no error, and invalid YAML is one warning.
func TestFrontMatterEdgeCasesBounded(t *testing.T) {
	t.Parallel()
	for name, yml := range frontMatterSeeds() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res := boundedBuild(t, "index.mdx", "---\n"+yml+"\n---\nBody\n", edgeCaseBound)
			t.Logf("%v, %d warnings", time.Since(start), len(res.Warnings))
		})
	}
	t.Run("unterminated", func(t *testing.T) {
		t.Parallel()
		// "---" without an end is not a header: the page is built from
		// the text as it is.
		for _, src := range []string{"---", "---\n", "---\ntitle: x", "---\ntitle: x\n" + strings.Repeat("y: z\n", 50000)} {
			boundedBuild(t, "index.mdx", src, edgeCaseBound)
		}
	})
	t.Run("invalid yaml warns", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"unclosed-flow", "deep-flow", "deep-map", "anchor-cycle", "binary", "unclosed-quote"} {
			res := boundedBuild(t, "index.mdx", "---\n"+frontMatterSeeds()[name]+"\n---\nBody\n", edgeCaseBound)
			found := false
			for _, w := range res.Warnings {
				found = found || strings.HasPrefix(w.Message, "invalid front matter")
			}
			if !found {
				t.Errorf("%s: no invalid-front-matter warning; warnings: %v", name, res.Warnings)
			}
		}
	})
}

// BenchmarkMDXEdgeCases prints how long each damaged input takes to build:
//
//	go test ./render -run '^$' -bench MDXEdgeCases -benchtime 1x
func BenchmarkMDXEdgeCases(b *testing.B) {
	for name, src := range mdxSeeds() {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				fsys := fstest.MapFS{
					"docs.json": {Data: []byte(`{"name": "x", "navigation": [{"group": "g", "pages": ["index"]}]}`)},
					"index.mdx": {Data: []byte(src)},
				}
				if _, err := Build(context.Background(), fsys, discardOutput{}, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(src)))
		})
	}
}

type discardOutput struct{}

func (discardOutput) WriteFile(string, []byte) error { return nil }
