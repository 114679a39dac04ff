package openapi

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

// TestFileSlug checks FileSlug against the examples of Mintlify's own
// tests of the function it mirrors (prepareStringToBeValidFilename in
// @mintlify/scraping) and a few more of its rules.
func TestFileSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Mintlify's examples.
		{"hello world", "hello-world"},
		{"Hello World", "hello-world"},
		{"Get-a-list-of-all-shelves-in-the-repo.", "get-a-list-of-all-shelves-in-the-repo"},
		{"get-repos-{repo_id}-commits-bulk", "get-repos--commits-bulk"},
		{"get-repos-{repo_id}-commits-", "get-repos--commits"},
		{"-get-repos-{repo_id}-commits-", "get-repos--commits"},
		{"Compare-a-ref-(commitbranchworkspacetagtree)-to-this-workspace", "compare-a-ref-commitbranchworkspacetagtree-to-this-workspace"},
		{"Compare-a-ref-commit/branch/workspace/tag/tree-to-this-workspace", "compare-a-ref-commitbranchworkspacetagtree-to-this-workspace"},
		{"Get-file-entry.-Either-one-of-workspace-branch-or-commit-ID-needs-to-be-specified.-This-api-supports-providing-download-url-for-large-files.\n",
			"get-file-entry-either-one-of-workspace-branch-or-commit-id-needs-to-be-specified-this-api-supports-providing-download-url-for-large-files"},
		{"Get-file-entry.-Either-one-of-workspace,-branch-or-commit-ID-needs-to-be-specified.-This-api-supports-providing-download-url-for-large-files.",
			"get-file-entry-either-one-of-workspace-branch-or-commit-id-needs-to-be-specified-this-api-supports-providing-download-url-for-large-files"},
		{"List-user's-repositories", "list-users-repositories"},
		// Summaries as written in documents.
		{"Get a pet", "get-a-pet"},
		{"Create a new user (admin only).", "create-a-new-user-admin-only"},
		{"Plants & Trees", "plants-&-trees"}, // other characters stay
		{"Ünïcode Naïve", "ünïcode-naïve"},
		{"a - b", "a--b"}, // "a---b", and one pass of "--" → "-"
		{"a  b", "a-b"},
		{"/plants/{id}", "plants"},
		{"/repos/{owner}/{repo}/commits", "repos-commits"},
		{"/", ""},
		{"...", ""},
	} {
		got, ok := FileSlug(c.in)
		if !ok || got != c.want {
			t.Errorf("FileSlug(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	if _, ok := FileSlug(""); ok {
		t.Error(`FileSlug("") is ok`)
	}
}

// pathsDoc has what decides generated page paths: summaries, none, the
// same summary twice in a group and across groups, tags with x-group,
// x-mint.href, x-hidden, x-excluded and webhooks.
const pathsDoc = `openapi: 3.1.0
info: {title: Plants, version: "1"}
tags:
  - {name: user-management, x-group: User Management}
paths:
  /plants:
    get: {summary: List plants, tags: [Plants]}
    post: {tags: [Plants]}
  /plants/{id}:
    get: {tags: [Plants]}
    delete: {tags: [Plants]}
    patch: {summary: List plants, tags: [Plants]}
  /trees:
    get: {summary: List plants}
    put: {summary: List plants, tags: [Trees]}
  /users:
    get: {summary: List users, tags: [user-management, Plants]}
  /legacy:
    get: {summary: Legacy, x-mint: {href: /deprecated/Legacy-Endpoint}}
  /hidden:
    get: {summary: Secret, tags: [Plants], x-hidden: true}
    post: {summary: Secret, tags: [Plants]}
  /gone:
    get: {summary: List plants, tags: [Plants], x-excluded: true}
  /:
    get: {}
webhooks:
  newPlant:
    post: {}
  plant.updated:
    post: {summary: List plants, tags: [Plants]}
`

func TestPagePaths(t *testing.T) {
	d, err := Parse("plants.yaml", []byte(pathsDoc))
	if err != nil {
		t.Fatal(err)
	}
	paths := d.PagePaths("")
	var got []string
	for _, op := range d.Operations {
		p, ok := paths[op]
		if !ok {
			p = "(none)"
		}
		got = append(got, op.Ref().String()+" → "+p)
	}
	want := []string{
		"GET /plants → api-reference/plants/list-plants",
		"POST /plants → api-reference/plants/post-plants",
		"GET /plants/{id} → api-reference/plants/get-plants", // "/plants/{id}" slugs as "plants"
		"DELETE /plants/{id} → api-reference/plants/delete-plants",
		"PATCH /plants/{id} → api-reference/plants/list-plants-1", // taken in its group
		"GET /trees → api-reference/list-plants",                  // untagged: another group
		"PUT /trees → api-reference/trees/list-plants",
		"GET /users → api-reference/user-management/list-users", // the tag's name, not its x-group
		"GET /legacy → deprecated/legacy-endpoint",
		"GET /hidden → api-reference/plants/secret",
		"POST /hidden → api-reference/plants/secret", // the hidden page takes no name
		"GET /gone → (none)",
		"GET / → api-reference/get-",
		"WEBHOOK newPlant → api-reference/newplant",
		"WEBHOOK plant.updated → api-reference/plants/list-plants-2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("page paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := d.PagePaths("Users-API")[d.Operations[0]]; p != "users-api/plants/list-plants" {
		t.Errorf("with a directory: %s", p)
	}
	if g := d.Operations[7].Group(); g != "User Management" {
		t.Errorf("Group = %q", g)
	}
}

func TestCleanPagePath(t *testing.T) {
	for in, want := range map[string]string{
		"api-reference/plants/list-plants": "api-reference/plants/list-plants",
		"../../etc/passwd":                 "etc/passwd",
		"/a//b/./c/":                       "a/b/c",
		"a/what?-100%-#1\\x":               "a/what-100-1x",
		"a/tab\there":                      "a/tabhere",
		"a/b:c&d":                          "a/b:c&d",
		"..":                               "",
		"a/" + strings.Repeat("x", 300):    "a/" + strings.Repeat("x", 200),
		"a/" + strings.Repeat("é", 150):    "a/" + strings.Repeat("é", 100), // cut at a character's start
		"a/b" + strings.Repeat("é", 150):   "a/b" + strings.Repeat("é", 99),
		strings.Repeat("d/", 40) + "name":  strings.Repeat("d/", 15) + "name",
	} {
		if got := CleanPagePath(in); got != want {
			t.Errorf("CleanPagePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPagePaths gives the page paths and the request examples of any
// document: the paths, once cleaned, are relative slash paths without
// dot segments or characters a URL path cannot hold, and no language's
// snippet panics.
func FuzzPagePaths(f *testing.F) {
	f.Add([]byte(pathsDoc))
	f.Add([]byte(`{"openapi": "3.1.0", "tags": [{"name": "..", "x-group": "x"}], "paths": {"/a/{b}": {"post": {"summary": "../../x?#%\u0000", "tags": ["../.."],
  "x-mint": {"href": "/../y/"}, "x-codeSamples": [{"lang": "py", "source": "print(1)"}],
  "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object", "properties": {"f": {"type": "string", "format": "binary"}, "n": {"type": "string"}}}}}}}}}}`))
	var all []string
	for _, l := range languages {
		all = append(all, l.key)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		d, err := ParseFilesMax("api.yaml", data, nil, 5000)
		if err != nil {
			return
		}
		for op, p := range d.PagePaths("") {
			c := CleanPagePath(p)
			if c != "" && !fs.ValidPath(c) || strings.ContainsAny(c, "?#%\\\x00\n") || len(c) > maxSegments*(maxSegmentBytes+1) {
				t.Fatalf("CleanPagePath(%q) = %q", p, c)
			}
			Render(op, Options{Playground: true, Examples: Examples{Languages: all}})
		}
	})
}

// TestPagePathsManyOfOneName: operations of one name take the suffixes in
// order, however many they are.
func TestPagePathsManyOfOneName(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\npaths:\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "  /p%d: {get: {summary: Same}}\n", i)
	}
	b.WriteString("  /hidden: {get: {summary: Same, x-hidden: true}}\n  /last: {get: {summary: Same-1}}\n")
	d, err := Parse("api.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	paths := d.PagePaths("")
	for i, op := range d.Operations {
		want := "api-reference/same"
		switch {
		case i == 3000: // hidden: the next free name, not taken
			want += "-3000"
		case i == 3001: // "same-1" is taken: its own suffix
			want += "-1-1"
		case i > 0:
			want += "-" + strconv.Itoa(i)
		}
		if paths[op] != want {
			t.Fatalf("%s: %s, want %s", op.Ref(), paths[op], want)
		}
	}
}
