package openapi

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Doc is a parsed OpenAPI document.
type Doc struct {
	// Name is how the document is named in messages (its file or URL).
	Name    string
	Version string // the "openapi" field, e.g. "3.1.0"
	Title   string
	Servers []Server
	// Operations are the operations of "paths" then "webhooks", in
	// document order.
	Operations []*Operation

	// Problems are the problems of the $refs to other files, found by
	// ParseFiles.
	Problems []Problem

	budget   *yamlReader  // the values left to the document and its $refs' files
	tooLarge *ValuesError // a file of a $ref over that bound

	root  *obj
	files map[string]*refFile // by path or URL, for $refs to other files (refs.go)
	bad   map[string]bool     // $refs reported in Problems
}

// Server is an entry of "servers", with its variables substituted by their
// defaults.
type Server struct{ URL, Description string }

// Operation is one operation of a path or a webhook.
type Operation struct {
	Method string // upper case: "GET"
	// Path is the path template, or the webhook's name.
	Path        string
	Webhook     bool
	ID          string // operationId
	Summary     string
	Description string
	Tags        []string
	Deprecated  bool

	doc  *Doc
	item *obj // the path item
	op   *obj
}

// Doc returns the document holding op.
func (op *Operation) Doc() *Doc { return op.doc }

// Methods are the HTTP methods of a path item, in display order.
var Methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// IsMethod reports whether s (any case) is an HTTP method or "WEBHOOK".
func IsMethod(s string) bool {
	s = strings.ToLower(s)
	for _, m := range Methods {
		if s == m {
			return true
		}
	}
	return s == "webhook"
}

// Parse decodes an OpenAPI 3.0 or 3.1 document, JSON or YAML. It fails
// when data is not a readable OpenAPI 3 document; problems inside it
// (missing $refs, odd schemas) are left for Render to report.
func Parse(name string, data []byte) (*Doc, error) {
	return parse(name, data, DefaultMaxValues)
}

func parse(name string, data []byte, maxValues int) (*Doc, error) {
	budget := &yamlReader{left: maxValues, max: maxValues}
	v, err := decode(data, budget)
	if err != nil {
		return nil, err
	}
	root, ok := v.(*obj)
	if !ok {
		return nil, errors.New("the top level is not an object")
	}
	if root.has("swagger") && !root.has("openapi") {
		return nil, fmt.Errorf("Swagger %s documents are not supported (OpenAPI 3.0 and 3.1 are)", root.str("swagger"))
	}
	ver := root.str("openapi")
	if ver == "" {
		return nil, errors.New(`no "openapi" version field`)
	}
	if !strings.HasPrefix(ver, "3.") {
		return nil, fmt.Errorf("OpenAPI version %q is not supported (3.0 and 3.1 are)", ver)
	}
	paths, webhooks := root.obj("paths"), root.obj("webhooks")
	if paths == nil && webhooks == nil {
		return nil, errors.New(`no "paths" or "webhooks"`)
	}
	d := &Doc{Name: name, Version: ver, root: root, budget: budget}
	d.Title = root.obj("info").str("title")
	d.Servers = servers(root.list("servers"))
	add := func(items *obj, webhook bool) {
		if items == nil {
			return
		}
		for _, p := range items.keys {
			item := d.derefObj(items.m[p], nil)
			if item == nil {
				continue
			}
			for _, m := range Methods {
				o := item.obj(m)
				if o == nil {
					continue
				}
				op := &Operation{Method: strings.ToUpper(m), Path: p, Webhook: webhook, doc: d, item: item, op: o,
					ID: o.str("operationId"), Summary: o.str("summary"), Description: o.str("description"),
					Deprecated: o.get("deprecated") == true}
				for _, t := range o.list("tags") {
					if s, ok := t.(string); ok {
						op.Tags = append(op.Tags, s)
					}
				}
				d.Operations = append(d.Operations, op)
			}
		}
	}
	add(paths, false)
	add(webhooks, true)
	return d, nil
}

var serverVarRE = regexp.MustCompile(`\{([^{}]+)\}`)

func servers(list []any) []Server {
	var out []Server
	for _, s := range list {
		o, ok := s.(*obj)
		if !ok || o.str("url") == "" {
			continue
		}
		vars := o.obj("variables")
		u := serverVarRE.ReplaceAllStringFunc(o.str("url"), func(m string) string {
			if v := vars.obj(m[1 : len(m)-1]); v != nil && v.str("default") != "" {
				return v.str("default")
			}
			return m
		})
		out = append(out, Server{URL: u, Description: o.str("description")})
	}
	return out
}

// Ref is an operation reference from a page's front matter:
// "METHOD /path", "FILE METHOD /path", "WEBHOOK name" or "FILE WEBHOOK name".
type Ref struct {
	File   string // "" when not named
	Method string // upper case, "WEBHOOK" for a webhook
	Path   string
}

// ParseRef reads an operation reference. ok is false when s has no method
// followed by a path or name.
func ParseRef(s string) (r Ref, ok bool) {
	f := strings.Fields(s)
	switch {
	case len(f) == 2 && IsMethod(f[0]):
		return Ref{Method: strings.ToUpper(f[0]), Path: f[1]}, true
	case len(f) == 3 && IsMethod(f[1]):
		return Ref{File: f[0], Method: strings.ToUpper(f[1]), Path: f[2]}, true
	}
	return Ref{}, false
}

// String formats r as written in front matter.
func (r Ref) String() string {
	s := r.Method + " " + r.Path
	if r.File != "" {
		s = r.File + " " + s
	}
	return s
}

var paramRE = regexp.MustCompile(`\{[^{}/]*\}`)

func normPath(p string) string {
	p = strings.TrimSpace(p)
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return p
}

// Find returns the operation r names (r.File is not checked), or nil.
// Paths match exactly, else ignoring the names of path parameters.
func (d *Doc) Find(r Ref) *Operation {
	want := normPath(r.Path)
	for pass := 0; pass < 3; pass++ {
		for _, op := range d.Operations {
			if r.Method == "WEBHOOK" {
				if !op.Webhook {
					continue
				}
				if pass == 0 && op.Path == want || pass == 1 && normPath(op.Path) == want ||
					pass == 2 && strings.Trim(op.Path, "/") == strings.Trim(want, "/") {
					return op
				}
				continue
			}
			if op.Webhook || op.Method != r.Method {
				continue
			}
			switch pass {
			case 0:
				if op.Path == r.Path {
					return op
				}
			case 1:
				if normPath(op.Path) == want {
					return op
				}
			case 2:
				if paramRE.ReplaceAllString(normPath(op.Path), "{}") == paramRE.ReplaceAllString(want, "{}") {
					return op
				}
			}
		}
	}
	return nil
}

// Ref returns the reference naming op.
func (op *Operation) Ref() Ref {
	if op.Webhook {
		return Ref{Method: "WEBHOOK", Path: op.Path}
	}
	return Ref{Method: op.Method, Path: op.Path}
}

// Title is the operation's summary, else its operationId, else its method
// and path.
func (op *Operation) Title() string {
	switch {
	case op.Summary != "":
		return op.Summary
	case op.ID != "":
		return op.ID
	}
	return op.Ref().String()
}

// Slugify lower-cases s and keeps letters, digits, "_" and single dashes.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r > 127 && isLetter(r):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}

// deref follows $refs from v (up to a bound). It returns the target and
// the name of the last component followed ("" when v was not a $ref). A
// $ref that cannot be resolved is reported through miss and yields nil.
func (d *Doc) deref(v any, miss func(ref string)) (any, string) {
	name := ""
	for i := 0; i < 32; i++ {
		o, ok := v.(*obj)
		if !ok {
			return v, name
		}
		ref, isRef := o.get("$ref").(string)
		if !isRef {
			return v, name
		}
		t, ok := d.pointer(ref)
		if !ok {
			if miss != nil {
				miss(ref)
			}
			return nil, name
		}
		name = refName(ref)
		v = t
	}
	if miss != nil {
		miss("(a chain of $refs that does not end)")
	}
	return nil, name
}

func (d *Doc) derefObj(v any, miss func(string)) *obj {
	t, _ := d.deref(v, miss)
	o, _ := t.(*obj)
	return o
}

// pointer resolves a reference "#/a/b" within the document, or, after
// ParseFiles, "file#/a/b" into another file (refs.go).
func (d *Doc) pointer(ref string) (any, bool) {
	file, frag, ok := strings.Cut(ref, "#")
	if !ok {
		return nil, false
	}
	var cur any = d.root
	if file != "" {
		f := d.files[file]
		if f == nil || f.root == nil {
			return nil, false
		}
		cur = f.root
	}
	p := strings.TrimPrefix(frag, "/")
	if p == "" {
		return cur, true
	}
	for _, seg := range strings.Split(p, "/") {
		seg = unescapeToken(seg)
		switch x := cur.(type) {
		case *obj:
			v, ok := x.m[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			n := 0
			for _, c := range seg {
				if c < '0' || c > '9' {
					return nil, false
				}
				n = n*10 + int(c-'0')
				if n > len(x) {
					return nil, false
				}
			}
			if n >= len(x) || seg == "" {
				return nil, false
			}
			cur = x[n]
		default:
			return nil, false
		}
	}
	return cur, true
}

func unescapePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
