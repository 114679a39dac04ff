package highlight

import (
	"bytes"
	_ "embed"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// Syntax highlighting happens at build time with chroma: a fence's code is
// tokenised by the lexer of its language and each token becomes a <span>
// with chroma's short class name (k, s2, c1, ...), styled by CSS.
// The markup is written here rather than by chroma's HTML formatter, whose
// per-line wrappers and per-token fmt calls are both bigger and slower; the
// classes and the CSS are chroma's own (formatters/html, WithClasses).

const (
	lightStyle = "github"
	darkStyle  = "github-dark"
)

// Block is a fenced code block to render.
type Block struct {
	Lang  string      // as written, reduced to safe characters; "" when none
	Title string      // "" when none
	Lines []LineRange // 1-based, inclusive, sorted
	Code  string
	// IconName is the icon a fence names (icon=...), for the caller to
	// draw into Icon, the HTML of an icon shown before the title, written
	// as it is: the caller makes it (render/icons), never the repository.
	IconName, Icon string
	// NoCopy leaves out the copy button; Wrap wraps long lines instead
	// of scrolling; Numbers shows line numbers.
	NoCopy, Wrap, Numbers bool
}

type LineRange struct{ From, To int }

// copyButton is the copy button site.js gives its behaviour.
const copyButton = `<button class="lc-copy" type="button" aria-label="Copy code">Copy</button>`

// Write writes a code block as
//
//	<div class="lc-code" data-lang="go"><div class="lc-code-header"><span class="lc-code-title">T</span>
//	<button class="lc-copy" type="button" aria-label="Copy code">Copy</button></div>
//	<pre class="chroma"><code>...</code></pre></div>
//
// (on one line), the markup site.js relies on. A block without a title
// (nor icon) has no header: its copy button comes first in the block, and
// the theme floats it over the code. Line numbers, when asked for, are a
// column of their own beside the code (lc-code-lines), out of what the
// copy button copies. cs is the build's store of highlighted code
// (store.go), nil when it has no cache.
func Write(w *bytes.Buffer, cb Block, cs *Store) {
	lang := cb.Lang
	if lang == "" {
		lang = "text"
	}
	w.WriteString(`<div class="lc-code`)
	if cb.Wrap {
		w.WriteString(" lc-code-wrap")
	}
	w.WriteString(`" data-lang="`)
	EscapeTo(w, lang)
	w.WriteString(`">`)
	if cb.Title != "" || cb.Icon != "" {
		w.WriteString(`<div class="lc-code-header"><span class="lc-code-title">`)
		w.WriteString(cb.Icon)
		EscapeTo(w, cb.Title)
		w.WriteString(`</span>`)
		if !cb.NoCopy {
			w.WriteString(copyButton)
		}
		w.WriteString(`</div>`)
	} else if !cb.NoCopy {
		w.WriteString(copyButton)
	}
	if cb.Numbers {
		writeLineNumbers(w, cb.Code)
	}
	w.WriteString(`<pre class="chroma"><code>`)
	lexer := lexerFor(cb.Lang)
	if lexer == nil || len(cb.Code) > maxCachedCode {
		highlightTo(w, lexer, cb.Code, cb.Lines)
	} else {
		key := highlightKey(cb)
		if v, ok := highlightCache.Load(key); ok {
			w.WriteString(v.(string))
		} else if html, ok := cs.stored(key); ok {
			w.WriteString(html)
			cacheHighlight(key, html)
		} else {
			start := w.Len()
			highlightTo(w, lexer, cb.Code, cb.Lines)
			html := string(w.Bytes()[start:])
			cacheHighlight(key, html)
			cs.record(key, html)
		}
	}
	w.WriteString("</code></pre>")
	if cb.Numbers {
		w.WriteString("</div>")
	}
	w.WriteString("</div>\n")
}

// writeLineNumbers opens the row of a numbered block and writes its
// column of numbers, one per line of code; Write closes the row after the
// code.
func writeLineNumbers(w *bytes.Buffer, code string) {
	n := strings.Count(strings.TrimSuffix(code, "\n"), "\n") + 1
	w.WriteString(`<div class="lc-code-lines chroma"><div class="lc-line-numbers" aria-hidden="true">`) // chroma: the background of the code
	for i := 1; i <= n; i++ {
		w.WriteString(strconv.Itoa(i))
		w.WriteByte('\n')
	}
	w.WriteString(`</div>`)
}

// Lexing is most of the cost of a build's code blocks (chroma's lexers
// are regular expressions), and the same block is often rendered again:
// the index copy of the first page, a snippet imported by several pages,
// the next build of the same site by the server. highlightCache keeps the
// highlighted HTML of blocks up to maxCachedCode bytes, up to
// maxCacheBytes in all.
const (
	maxCachedCode = 64 << 10
	maxCacheBytes = 64 << 20
)

var (
	highlightCache     sync.Map // highlightKey → string
	highlightCacheSize atomic.Int64
)

func highlightKey(cb Block) string {
	var b strings.Builder
	b.Grow(len(cb.Lang) + len(cb.Code) + 16)
	b.WriteString(cb.Lang)
	b.WriteByte(0)
	for _, r := range cb.Lines {
		b.WriteString(strconv.Itoa(r.From))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(r.To))
		b.WriteByte(',')
	}
	b.WriteByte(0)
	b.WriteString(cb.Code)
	return b.String()
}

func cacheHighlight(key, html string) {
	size := int64(len(key) + len(html))
	if highlightCacheSize.Add(size) > maxCacheBytes {
		highlightCacheSize.Add(-size)
		return
	}
	if _, loaded := highlightCache.LoadOrStore(key, strings.Clone(html)); loaded {
		highlightCacheSize.Add(-size)
	}
}

// highlightTo writes code as highlighted HTML: tokens in <span class="X">
// and the lines in hl in <span class="hl">. A nil lexer writes plain,
// escaped text.
func highlightTo(w *bytes.Buffer, lexer chroma.Lexer, code string, hl []LineRange) {
	e := lineEmitter{w: w, hl: hl, line: 1}
	if lexer == nil {
		e.text(code, "")
		e.end()
		return
	}
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		e.text(code, "")
		e.end()
		return
	}
	for tok := it(); tok != chroma.EOF; tok = it() {
		e.text(tok.Value, tokenClass(tok.Type))
	}
	e.end()
}

// lineEmitter writes text line by line, opening and closing the highlight
// span of highlighted lines; a token spanning lines is split at each line
// end so that spans nest properly.
type lineEmitter struct {
	w       *bytes.Buffer
	hl      []LineRange
	hi      int // index of the first range that may still apply
	line    int
	started bool
	open    bool
}

func (e *lineEmitter) start() {
	if e.started {
		return
	}
	e.started = true
	for e.hi < len(e.hl) && e.hl[e.hi].To < e.line {
		e.hi++
	}
	if e.hi < len(e.hl) && e.hl[e.hi].From <= e.line {
		e.w.WriteString(`<span class="hl">`)
		e.open = true
	}
}

func (e *lineEmitter) end() {
	if e.open {
		e.w.WriteString("</span>")
		e.open = false
	}
}

func (e *lineEmitter) text(s, class string) {
	for s != "" {
		piece := s
		nl := strings.IndexByte(s, '\n')
		if nl >= 0 {
			piece = s[:nl]
		}
		if piece != "" {
			e.start()
			if class != "" {
				e.w.WriteString(`<span class="`)
				e.w.WriteString(class)
				e.w.WriteString(`">`)
				EscapeTo(e.w, piece)
				e.w.WriteString("</span>")
			} else {
				EscapeTo(e.w, piece)
			}
		}
		if nl < 0 {
			return
		}
		e.start()
		e.w.WriteByte('\n')
		e.end()
		e.line++
		e.started = false
		s = s[nl+1:]
	}
}

// EscapeTo writes s with &, <, > and " escaped.
func EscapeTo(w *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&#34;"
		default:
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(rep)
		last = i + 1
	}
	w.WriteString(s[last:])
}

// lexerAliases maps fence languages that chroma does not know by that name
// (or knows as something else) to a chroma lexer name; "" is plain text.
var lexerAliases = map[string]string{
	"sh": "bash", "shell": "bash", "zsh": "bash", "curl": "bash", "env": "bash", "dotenv": "bash",
	"console": "bash", "terminal": "bash", "cmd": "batchfile", "ps": "powershell", "ps1": "powershell",
	"js": "javascript", "mjs": "javascript", "cjs": "javascript", "ts": "typescript", "mts": "typescript",
	"jsonc": "json", "json5": "json", "jsonl": "json", "mdx": "markdown", "md": "markdown",
	"yml": "yaml", "py": "python", "rb": "ruby", "rs": "rust", "kt": "kotlin", "golang": "go",
	"csharp": "c#", "cs": "c#", "fsharp": "f#", "objc": "objective-c", "tf": "terraform", "hcl": "terraform",
	"text": "", "txt": "", "plain": "", "plaintext": "", "none": "", "output": "", "ascii": "", "mermaid": "",
}

// lexerCache holds the coalesced lexer of each language seen; a nil entry
// means plain text. chroma lexers are safe for concurrent use. Languages
// come from the repository: misses are kept up to maxLexerMisses, so that
// fences of ever new names cannot grow it without end.
var (
	lexerCache  sync.Map // string → chroma.Lexer (nil interface for none)
	lexerMisses atomic.Int64
)

// maxLexerMisses bounds the unknown languages lexerCache keeps;
// maxLangLen is the longest language looked up: chroma tries every
// lexer's file name patterns on an unknown one, in time that grows with
// its length.
const (
	maxLexerMisses = 4096
	maxLangLen     = 32
)

func lexerFor(lang string) chroma.Lexer {
	if lang == "" || len(lang) > maxLangLen {
		return nil
	}
	if v, ok := lexerCache.Load(lang); ok {
		l, _ := v.(chroma.Lexer)
		return l
	}
	name := strings.ToLower(lang)
	if a, ok := lexerAliases[name]; ok {
		name = a
	}
	var l chroma.Lexer
	if name != "" {
		if found := lexers.Get(name); found != nil && found != lexers.Fallback {
			l = chroma.Coalesce(found)
		}
	}
	if l == nil {
		if lexerMisses.Add(1) <= maxLexerMisses {
			lexerCache.Store(lang, nil)
		}
		return nil
	}
	lexerCache.Store(lang, l)
	return l
}

// highlightStyles is what both styles define: the CSS and the token
// classes that carry a style in either. The CSS is chroma's, generated
// from its styles package into highlight_styles.css by
// TestHighlightStylesCSS (go test ./render -run HighlightStylesCSS
// -update), which checks it is up to date, rather than computed when the
// program runs: importing chroma's styles parses all of its XML styles at
// start-up, some 6 ms of every lectern command.
var highlightStyles = sync.OnceValues(func() ([]byte, map[string]bool) {
	return highlightStylesCSS, styledClasses(highlightStylesCSS)
})

// styledClasses returns the token classes that css styles: X of each line
// whose selector is ".chroma .X {", alone or after an html prefix
// ("html[data-theme=dark] .chroma .X {"). It runs once, in highlightStyles.
func styledClasses(css []byte) map[string]bool {
	re := regexp.MustCompile(`(?m)^(?:html\S* )?\.chroma \.(\w+) \{`)
	classes := map[string]bool{}
	for _, m := range re.FindAllSubmatch(css, -1) {
		classes[string(m[1])] = true
	}
	return classes
}

//go:embed highlight_styles.css
var highlightStylesCSS []byte

// CSS returns the CSS of highlighted code: the light style by
// default, the dark one under prefers-color-scheme: dark (unless
// html[data-theme="light"]) and under html[data-theme="dark"].
func CSS() []byte {
	css, _ := highlightStyles()
	return bytes.Clone(css)
}

// tokenClasses maps each standard token type to the class it is written
// with: its own when a style defines it, else its nearest parent's that
// is, else none.
var tokenClasses = sync.OnceValue(func() map[chroma.TokenType]string {
	_, defined := highlightStyles()
	m := make(map[chroma.TokenType]string, len(chroma.StandardTypes))
	for tt := range chroma.StandardTypes {
		m[tt] = classFor(tt, defined)
	}
	return m
})

func classFor(tt chroma.TokenType, defined map[string]bool) string {
	for t := tt; t > 0; t = t.Parent() {
		if cls := chroma.StandardTypes[t]; cls != "" && defined[cls] {
			return cls
		}
	}
	return ""
}

func tokenClass(tt chroma.TokenType) string {
	if c, ok := tokenClasses()[tt]; ok {
		return c
	}
	_, defined := highlightStyles()
	return classFor(tt, defined)
}

// codeFlags are the options of a fence that are a word alone; lines,
// showLineNumbers and wrap change the block, the others are accepted and
// have no effect.
var codeFlags = map[string]bool{"lines": true, "wrap": true, "expandable": true, "twoslash": true, "showLineNumbers": true}

// ParseInfo reads a fence's info string, as Mintlify writes it:
// ```lang title {1,3-5}, ```lang Title Here highlight={2} lines wrap,
// ```lang title="x.py" icon=js: a language (safe for an attribute), a
// title, the lines to highlight, an icon's name, and the flags lines
// (line numbers) and wrap.
func ParseInfo(info string) Block {
	var cb Block
	toks := splitQuoted(info)
	if len(toks) == 0 {
		return cb
	}
	if first := toks[0]; !strings.ContainsAny(first, "={") {
		cb.Lang = CleanLang(first)
		toks = toks[1:]
	}
	var words []string
	for _, t := range toks {
		k, v, hasEq := strings.Cut(t, "=")
		switch {
		case strings.HasPrefix(t, "{"):
			cb.Lines = append(cb.Lines, parseLineRanges(t)...)
		case codeFlags[t]:
			cb.Numbers = cb.Numbers || t == "lines" || t == "showLineNumbers"
			cb.Wrap = cb.Wrap || t == "wrap"
		case hasEq && k == "icon":
			cb.IconName = strings.Trim(v, `"'`)
		case hasEq && (k == "title" || k == "filename"):
			cb.Title = strings.Trim(v, `"'`)
		case hasEq && (k == "highlight" || k == "lines" || k == "hl"):
			cb.Lines = append(cb.Lines, parseLineRanges(v)...)
		case hasEq:
		default:
			words = append(words, strings.Trim(t, `"'`))
		}
	}
	if cb.Title == "" {
		cb.Title = strings.Join(words, " ")
	}
	cb.Lines = normalizeRanges(cb.Lines)
	return cb
}

// CleanLang reduces a language name to the characters safe in an
// attribute and a class name.
func CleanLang(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && langByte(byte(r)) {
			return r
		}
		return -1
	}, s)
}

// ParseLines reads lines to highlight as Mintlify writes them: "{1,3-5}",
// "1,3-5" or a stringified array "[1,3,4]".
func ParseLines(s string) []LineRange {
	return normalizeRanges(parseLineRanges(strings.Trim(strings.TrimSpace(s), "[]")))
}

// parseLineRanges reads "{1,3-5}" (braces and quotes optional).
func parseLineRanges(s string) []LineRange {
	s = strings.Trim(s, `{}"' `)
	var out []LineRange
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		a, b, isRange := strings.Cut(part, "-")
		from, err1 := strconv.Atoi(strings.TrimSpace(a))
		to := from
		var err2 error
		if isRange {
			to, err2 = strconv.Atoi(strings.TrimSpace(b))
		}
		if err1 != nil || err2 != nil || from < 1 || to < from || to-from > 100000 {
			continue
		}
		out = append(out, LineRange{from, to})
	}
	return out
}

// normalizeRanges sorts ranges by start, as the line emitter needs.
func normalizeRanges(r []LineRange) []LineRange {
	sort.Slice(r, func(i, j int) bool { return r[i].From < r[j].From })
	return r
}

// splitQuoted splits s at spaces outside quotes and braces.
func splitQuoted(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
		case (c == ' ' || c == '\t') && depth <= 0:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteByte(c)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// langByte reports whether c may be part of a language name.
func langByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_-.$+#", c) >= 0
}

// ForgetCached empties the process's memory of highlighted blocks, as in a
// new process (tests of the rebuild cache).
func ForgetCached() {
	highlightCache.Clear()
	highlightCacheSize.Store(0)
}
