package apidoc

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern/httpapi"
)

// outsideV1 are the codes that no /v1 operation sends, with what does:
// they are in the reference's table of codes, not in the Problem schema.
var outsideV1 = map[string]string{
	"forbidden": "download link", // blobstore.LocalLinks
}

// perPath are the codes of the path rather than of an operation: the
// reference says them once per operation, below its responses.
var perPath = map[string]bool{"method_not_allowed": true}

// errorCodes reads the error codes lectern defines: the string constants
// named E... of errors.go, so that a code added there is checked here
// without anyone listing it.
func errorCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "E") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					code, _ := strconv.Unquote(lit.Value)
					codes[code] = name.Name
				}
			}
		}
	}
	if len(codes) < 10 || codes["not_found"] != "ENOTFOUND" {
		t.Fatalf("errors.go's codes are not what this test reads: %v", codes)
	}
	return codes
}

// TestEveryErrorCodeIsDocumented fails when a code of errors.go is missing
// from the document: from its table of codes (with the status the API
// maps it to), from the Problem schema's codes unless no /v1 operation
// sends it, and from every operation's responses unless it is the path's.
// A new code cannot be forgotten in the reference.
func TestEveryErrorCodeIsDocumented(t *testing.T) {
	spec, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(spec, &root); err != nil {
		t.Fatal(err)
	}
	d := &doc{root: root}
	// The table of codes in the document's description: | 404 | `not_found` | ... |
	table := map[string][]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| (\\d{3}) \\| `([a-z_]+)` \\| (.*)\\|$").FindAllStringSubmatch(str(obj(root["info"])["description"]), -1) {
		table[m[2]] = append(table[m[2]], m[1], m[3])
	}
	var enum []string
	for _, c := range arr(obj(obj(obj(obj(obj(root["components"])["schemas"])["Problem"])["properties"])["code"])["enum"]) {
		enum = append(enum, str(c))
	}
	inOperations := map[string]bool{}
	for _, item := range obj(root["paths"]) {
		for _, m := range methods {
			for _, r := range obj(obj(obj(item)[m])["responses"]) {
				for _, c := range d.codes(d.resolve(obj(r))) {
					inOperations[c] = true
				}
			}
		}
	}

	codes := errorCodes(t)
	for code, name := range codes {
		status := strconv.Itoa(httpapi.StatusOf(code))
		switch row := table[code]; {
		case row == nil:
			t.Errorf("lectern.%s (%q, %s): not in the table of codes of the document's description", name, code, status)
		case row[0] != status:
			t.Errorf("lectern.%s (%q): the table says %s, the API answers %s", name, code, row[0], status)
		case outsideV1[code] != "" && !strings.Contains(row[1], outsideV1[code]):
			t.Errorf("lectern.%s (%q): the table does not say that the %s sends it", name, code, outsideV1[code])
		}
		if outsideV1[code] != "" {
			if slices.Contains(enum, code) || inOperations[code] {
				t.Errorf("lectern.%s (%q) is documented as an operation's code, but no /v1 operation sends it", name, code)
			}
			continue
		}
		if !slices.Contains(enum, code) {
			t.Errorf("lectern.%s (%q): not in the Problem schema's codes", name, code)
		}
		if !perPath[code] && !inOperations[code] {
			t.Errorf("lectern.%s (%q): no operation's responses name it", name, code)
		}
	}
	for code := range table {
		if codes[code] == "" {
			t.Errorf("the table of codes names %q, which errors.go does not define", code)
		}
	}
	for _, code := range enum {
		if codes[code] == "" {
			t.Errorf("the Problem schema names %q, which errors.go does not define", code)
		}
	}
}

// Each operation's section says which methods its path takes, and the
// server answers any other with that 405: the reference tells the truth.
func TestMethodNotAllowedAsDocumented(t *testing.T) {
	spec, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Markdown(spec)
	if err != nil {
		t.Fatal(err)
	}
	md := string(out)
	var root map[string]any
	if err := json.Unmarshal(spec, &root); err != nil {
		t.Fatal(err)
	}
	// No store: a method is refused before anything is read, and an
	// operation's own method stops at authentication.
	reg := prometheus.NewRegistry()
	h := httpapi.NewHandler(slog.New(slog.DiscardHandler), nil, nil, nil, nil, nil, reg, reg, httpapi.Config{})
	params := regexp.MustCompile(`\{[^}]+\}`)
	for path, raw := range obj(root["paths"]) {
		item := obj(raw)
		allow := Allow(item)
		line := "Any other method on `/v1" + path + "` answers 405 `method_not_allowed`, with `Allow: " + allow + "`."
		for _, m := range methods {
			if item[m] != nil && strings.Count(md, line) == 0 {
				t.Errorf("the section of %s %s does not say %q", m, path, line)
			}
		}
		url := "/v1" + params.ReplaceAllString(path, "x_1")
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(m, url, nil))
			body, _ := io.ReadAll(w.Result().Body)
			takes := slices.Contains(strings.Split(allow, ", "), m)
			switch {
			case takes && w.Code == http.StatusMethodNotAllowed:
				t.Errorf("%s %s: 405, but the document says the path takes it", m, url)
			case !takes && (w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != allow ||
				!strings.Contains(string(body), `"code":"method_not_allowed"`)):
				t.Errorf("%s %s: %d Allow %q %s, want 405 method_not_allowed with Allow %q", m, url, w.Code, w.Header().Get("Allow"), body, allow)
			}
		}
	}
}
