package openapi

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// A $ref may name another file: "./schemas/pet.yaml#/Pet",
// "common.json#/components/schemas/X", or a whole file "pet.yaml".
// ParseFiles reads those files (and the files they name, each once) when
// the document is parsed, and rewrites every $ref into a canonical form:
// "#/..." for the document itself, "file#/..." for another file, where
// file is the path in the docs folder (or the URL) that the reader was
// asked for. Rendering then follows $refs across files as within one;
// cycles between files are cut as cycles within one are.

// maxRefFiles bounds the files a document may pull in.
const maxRefFiles = 256

// Problem is a problem of a document found when it was parsed, at the
// place in the source it comes from.
type Problem struct {
	File    string // the file (or URL) holding the $ref
	Line    int    // its line, or 0 when unknown
	Message string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return p.File + ": " + p.Message
}

// ReadFunc returns the content of a file that a $ref names: a slash-
// separated path inside the docs folder ("api/schemas/pet.yaml", never
// leaving it), or an http(s) URL. Its error explains why the file cannot
// be read ("not found", "remote fetching is off").
type ReadFunc func(name string) ([]byte, error)

// refFile is a file loaded for a document's $refs.
type refFile struct {
	root any
	err  error
}

// ParseFiles is Parse for a document whose $refs may name other files.
// name is the document's path in the docs folder or its URL, and $refs to
// relative files are resolved against it; read reads them. A $ref that
// leaves the docs folder, names a file that cannot be read or parsed, or
// points at nothing in it is a Problem of the returned Doc (with the file
// and line of the $ref); the document is still returned. It fails only as
// Parse does, for the document itself. A nil read reads no file: $refs to
// other files are then reported as missing when rendered.
func ParseFiles(name string, data []byte, read ReadFunc) (*Doc, error) {
	return ParseFilesMax(name, data, read, DefaultMaxValues)
}

// ParseFilesMax is ParseFiles with a bound on the values that the
// document and the files of its $refs expand to together (see
// ValuesError); maxValues <= 0 means no bound. Exceeding it in a file
// named by a $ref fails the whole parse too.
func ParseFilesMax(name string, data []byte, read ReadFunc, maxValues int) (*Doc, error) {
	d, err := parse(name, data, maxValues)
	if err != nil || read == nil {
		return d, err
	}
	d.loadRefs(read)
	if d.tooLarge != nil {
		return nil, d.tooLarge
	}
	return d, nil
}

// loadRefs reads the files named by the $refs of d, and of those files in
// turn, rewriting the $refs to their canonical form.
func (d *Doc) loadRefs(read ReadFunc) {
	d.files, d.bad = map[string]*refFile{}, map[string]bool{}
	queue := []string{d.Name}
	roots := map[string]any{d.Name: d.root}
	order := map[string]int{d.Name: 0} // files in the order they were read
	type site struct {
		o    *obj
		file string
		ref  string // as written
	}
	var external []site
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		walkObjs(roots[file], 0, func(o *obj) {
			ref, ok := o.get("$ref").(string)
			if !ok {
				return
			}
			target, frag, err := d.refTarget(file, ref)
			if err != nil {
				d.problem(file, o.refLine, fmt.Sprintf("$ref %s: %v", quote(ref), err))
				d.bad[ref] = true
				return
			}
			canon := "#" + frag
			if target != d.Name {
				canon = target + canon
				if _, loaded := d.files[target]; !loaded {
					f := &refFile{}
					d.files[target] = f
					if len(d.files) > maxRefFiles {
						f.err = fmt.Errorf("more than %d files are named by $refs; not read", maxRefFiles)
					} else if data, err := read(target); err != nil {
						f.err = err
					} else if v, err := decode(data, d.budget); err != nil {
						f.err = err
						var ve *ValuesError
						if errors.As(err, &ve) && d.tooLarge == nil {
							ve.File = target
							d.tooLarge = ve
						}
					} else {
						f.root = v
						roots[target] = v
						order[target] = len(order)
						queue = append(queue, target)
					}
				}
				external = append(external, site{o, file, ref})
			}
			o.m["$ref"] = canon
		})
	}
	// Each $ref into another file must lead somewhere.
	for _, s := range external {
		canon := s.o.m["$ref"].(string)
		target := canon[:strings.IndexByte(canon, '#')]
		msg := ""
		if f := d.files[target]; f.err != nil {
			msg = fmt.Sprintf("$ref %s: %s cannot be read: %v", quote(s.ref), target, f.err)
		} else if _, ok := d.pointer(canon); !ok {
			msg = fmt.Sprintf("$ref %s: no %s in %s", quote(s.ref), canon[len(target)+1:], target)
		}
		if msg != "" {
			d.problem(s.file, s.o.refLine, msg)
			d.bad[canon] = true
		}
	}
	sort.SliceStable(d.Problems, func(i, j int) bool {
		a, b := d.Problems[i], d.Problems[j]
		if a.File != b.File {
			return order[a.File] < order[b.File]
		}
		return a.Line < b.Line
	})
}

func (d *Doc) problem(file string, line int, msg string) {
	p := Problem{File: file, Line: line, Message: msg}
	for _, q := range d.Problems {
		if q == p {
			return
		}
	}
	d.Problems = append(d.Problems, p)
}

// refTarget resolves ref, written in file, to the file it names (d.Name
// for a reference within the document) and its fragment.
func (d *Doc) refTarget(file, ref string) (target, frag string, err error) {
	loc, frag, _ := strings.Cut(ref, "#")
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", "", fmt.Errorf("the fragment %q is not a JSON pointer", frag)
	}
	if loc == "" {
		return file, frag, nil
	}
	errScheme := fmt.Errorf("only files of the docs folder and http(s) URLs can be read")
	if isURL(file) || isURL(loc) {
		base, err := url.Parse(file)
		if err != nil {
			return "", "", err
		}
		u, err := url.Parse(loc)
		if err != nil {
			return "", "", err
		}
		u = base.ResolveReference(u)
		if u.Scheme != "http" && u.Scheme != "https" {
			return "", "", errScheme
		}
		u.Fragment = ""
		return u.String(), frag, nil
	}
	if strings.Contains(loc, ":") || strings.HasPrefix(loc, "//") || strings.Contains(loc, "\\") {
		return "", "", errScheme
	}
	p, err := url.PathUnescape(loc)
	if err != nil {
		p = loc
	}
	if strings.Contains(p, "#") {
		return "", "", fmt.Errorf("the file name has a %q", "#")
	}
	if strings.HasPrefix(p, "/") { // from the root of the docs folder
		return strings.TrimPrefix(path.Clean(p), "/"), frag, nil
	}
	p = path.Join(path.Dir(file), p)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", "", fmt.Errorf("the file is outside the docs folder; not read")
	}
	return p, frag, nil
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// walkObjs calls f for every object under v, parents first.
func walkObjs(v any, depth int, f func(*obj)) {
	if depth > maxDepth {
		return
	}
	switch x := v.(type) {
	case *obj:
		f(x)
		for _, k := range x.keys {
			walkObjs(x.m[k], depth+1, f)
		}
	case []any:
		for _, e := range x {
			walkObjs(e, depth+1, f)
		}
	}
}

// refName is the name a $ref gives its target: the last segment of its
// pointer, or, for a whole file, the file's name without extension.
func refName(ref string) string {
	loc, frag, _ := strings.Cut(ref, "#")
	if frag != "" {
		return unescapeToken(frag[strings.LastIndexByte(frag, '/')+1:])
	}
	base := path.Base(loc)
	return strings.TrimSuffix(base, path.Ext(base))
}

// unescapeToken decodes a JSON pointer token.
func unescapeToken(seg string) string {
	seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
	return unescapePercent(seg)
}
