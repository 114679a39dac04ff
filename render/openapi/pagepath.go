package openapi

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Where Mintlify puts the page it generates for an operation, so that a
// site's links (its own and the outside world's) reach the same pages.
//
// The page of an operation is {directory}/{folder}/{name}, lower-cased:
//
//   - directory is the "directory" of the navigation's openapi object,
//     "api-reference" when not given;
//   - folder is the operation's first tag through FileSlug, none when it
//     has no tag;
//   - name is the summary through FileSlug, else "{method}-" followed by
//     the path through FileSlug ("get-plants" for GET /plants/{id}); for a
//     webhook, the summary else the webhook's name through FileSlug;
//   - x-mint.href, when set, replaces all three;
//   - within one document, a name already taken in the operation's group
//     (its first tag) gets "-1", then "-2" and so on, in the document's
//     order: paths then webhooks, each path's methods in the order get,
//     put, post, delete, options, head, patch, trace.
//
// Operations with x-excluded get no page; those with x-hidden get one but
// take no name from the others.

// DefaultDirectory is where generated pages go when the navigation names
// no directory.
const DefaultDirectory = "api-reference"

var (
	// JavaScript's "." matches anything but a line terminator.
	paramSlugRE = regexp.MustCompile("\\{[^\n\r\u2028\u2029]*?\\}")
	dropSlugRE  = regexp.MustCompile(`[{}(),.'\n/]`)
)

// FileSlug turns s into a file name as Mintlify does for generated pages:
// spaces become dashes, each {…} a dash, one leading and one trailing dash
// go, the characters { } ( ) , . ' / and newlines go, "--" becomes "-"
// (one pass), and the result is lower-cased. Other characters stay. ok is
// false when s is empty (Mintlify then falls back to another name); the
// result may be empty with ok true ("..." gives "").
func FileSlug(s string) (slug string, ok bool) {
	if s == "" {
		return "", false
	}
	s = strings.ReplaceAll(s, " ", "-")
	s = paramSlugRE.ReplaceAllString(s, "-")
	s = strings.TrimPrefix(s, "-")
	s = strings.TrimSuffix(s, "-")
	s = dropSlugRE.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "--", "-")
	return strings.ToLower(s), true
}

// PageName is the last part of the page path of op, before any suffix
// for a name taken: the slug of its summary, else "{method}-{path slug}"
// ("{name slug}" for a webhook).
func (op *Operation) PageName() string {
	if s, ok := FileSlug(op.Summary); ok {
		return s
	}
	name, _ := FileSlug(op.Path)
	if op.Webhook {
		return name
	}
	return strings.ToLower(op.Method) + "-" + name
}

// Href is the operation's x-mint.href: the URL it asks for its page, or "".
func (op *Operation) Href() string {
	return op.op.obj("x-mint").str("href")
}

// Excluded reports x-excluded: the operation gets no page.
func (op *Operation) Excluded() bool { return op.op.get("x-excluded") == true }

// Hidden reports x-hidden: the operation's page is left out of the
// navigation.
func (op *Operation) Hidden() bool { return op.op.get("x-hidden") == true }

// Group is the label of the navigation group of op: its first tag, shown
// by the tag's x-group when the document's tags give one; "" when untagged.
func (op *Operation) Group() string {
	if len(op.Tags) == 0 {
		return ""
	}
	tag := op.Tags[0]
	for _, t := range op.doc.root.list("tags") {
		if to, ok := t.(*obj); ok && to.str("name") == tag && to.str("x-group") != "" {
			return to.str("x-group")
		}
	}
	return tag
}

// pageBase is the page path of op before a suffix: directory, folder of
// the first tag, and PageName; or its x-mint.href.
func (op *Operation) pageBase(dir string) string {
	if h := op.Href(); h != "" {
		h = strings.TrimRight(strings.TrimPrefix(h, "/"), "/")
		name := path.Base(h)
		if ext := path.Ext(name); ext != "" && ext != name {
			name = strings.TrimSuffix(name, ext)
		}
		return path.Join(path.Dir(h), name)
	}
	folder := ""
	if len(op.Tags) > 0 {
		folder, _ = FileSlug(op.Tags[0])
	}
	return path.Join(dir, folder, op.PageName())
}

// PagePaths returns the page path of each operation of d that gets a page
// (not x-excluded), by Mintlify's rule, for pages generated under the
// folder dir (DefaultDirectory when ""). The paths are not checked for
// use as a file name (see CleanPagePath).
func (d *Doc) PagePaths(dir string) map[*Operation]string {
	if dir == "" {
		dir = DefaultDirectory
	}
	type key struct{ group, path string } // group: the first tag
	taken := map[key]bool{}
	// next is, by group and base, the suffix of the last name found free:
	// those before it are taken, so that n operations of one name cost n
	// steps, not n².
	next := map[key]int{}
	out := map[*Operation]string{}
	for _, op := range d.Operations {
		if op.Excluded() {
			continue
		}
		group := ""
		if len(op.Tags) > 0 {
			group = "tag:" + op.Tags[0]
		}
		base := strings.ToLower(op.pageBase(dir))
		i := next[key{group, base}]
		p := suffixed(base, i)
		for taken[key{group, p}] {
			i++
			p = suffixed(base, i)
		}
		next[key{group, base}] = i
		if !op.Hidden() {
			taken[key{group, p}] = true
		}
		out[op] = p
	}
	return out
}

// suffixed is base with the suffix "-i" of a name taken; base itself for
// i 0.
func suffixed(base string, i int) string {
	if i == 0 {
		return base
	}
	return base + "-" + strconv.Itoa(i)
}

// Bounds of a cleaned page path (CleanPagePath), so that it can be
// written as files: file systems take names of at most 255 bytes (a page
// adds ".html", a name taken "-1"…) and paths of at most 4,096.
const (
	maxSegmentBytes = 200
	maxSegments     = 16
)

// CleanPagePath makes a page path computed by PagePaths usable as a file
// name and a URL path: it drops control characters and ? # % \ (which a
// URL path cannot hold as written), and empty, "." and ".." segments; it
// cuts segments longer than 200 bytes (at a character's start) and, of a
// path of more than 16 segments, keeps the first 15 and the last. The
// result may be "".
func CleanPagePath(p string) string {
	p = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`?#%\`, r) {
			return -1
		}
		return r
	}, p)
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if len(s) > maxSegmentBytes {
			n := maxSegmentBytes
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			s = s[:n]
		}
		if s != "" && s != "." && s != ".." {
			segs = append(segs, s)
		}
	}
	if len(segs) > maxSegments {
		segs = append(segs[:maxSegments-1], segs[len(segs)-1])
	}
	return strings.Join(segs, "/")
}

// SinglePagePath is the page path of op alone, without the suffix its
// document's other operations could give it (PagePaths).
func SinglePagePath(op *Operation, dir string) string {
	if dir == "" {
		dir = DefaultDirectory
	}
	return strings.ToLower(op.pageBase(dir))
}
