package features

import (
	"path"
	"strings"
)

// Serving a built site.
//
// Lectern's servers (live sites, lectern selfhost, lectern build --serve)
// send every file of a site with the headers ServeHeaders gives, so that
// nothing of the docs repository runs script on the docs origin:
//
//   - pages (.html) get the site's policy (Site.ContentSecurityPolicy):
//     scripts from the site only, no inline script or event handler, no
//     plugin, frames from the site only;
//   - every other file gets FileCSP, a sandbox without script: an SVG, XML
//     or other document of the repository opened directly runs nothing
//     (an SVG still shows in <img>, which never runs its scripts);
//   - JavaScript outside _lectern/ (the repository's .js files) is sent as
//     text/plain, and with X-Content-Type-Options: nosniff browsers refuse
//     to run it from <script src>, a worker or an import. Lectern's own
//     scripts, and the repository's scripts that a project deliberately
//     enables (Options.CustomScripts, copied under _lectern/custom/), are
//     the only JavaScript a site serves, so "script-src 'self'" lets only
//     them run.
//
// Exports carry the pages' policy as a <meta http-equiv> as well (without
// frame-ancestors, which a meta element cannot carry), so that it holds
// when the bundle is opened from file:// or served by any static host.

// FileCSP is the Content-Security-Policy of every file of a site that is
// not a page.
const FileCSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'self'"

// ScriptDir is the folder of a built site whose JavaScript is served as
// such: the theme's and the features' scripts, and the copies of the
// repository's scripts when custom scripts are on.
const ScriptDir = "_lectern/"

// NavDir is the folder of the navigation files of the sections whose
// sidebar is split (render/layout: navfile.go). Pages link to them by a
// name that does not change with their content, so servers must have
// browsers revalidate them, as pages, whatever their name looks like.
const NavDir = ScriptDir + "nav/"

// Revalidated reports whether the site file name (a clean slash path) keeps
// its name while its content changes from one build to the next, so that
// servers must have browsers revalidate it rather than keep it for a time:
// pages and their Markdown (PAGE.md, llms.txt, llms-full.txt), the
// navigation files and the search index's meta file and fragment files
// (which name the chunks and pages of their own build: a stale one would
// point at files the new build no longer has), not its chunks, named by
// their content.
func Revalidated(name string) bool {
	return strings.HasSuffix(name, ".html") || strings.HasSuffix(name, ".md") || name == "llms.txt" || name == "llms-full.txt" ||
		strings.HasPrefix(name, NavDir) || strings.HasPrefix(name, SearchDir) && !strings.HasPrefix(name, SearchChunkDir)
}

// MarkdownType is the Content-Type of a site's Markdown files (PAGE.md).
const MarkdownType = "text/markdown; charset=utf-8"

// SearchChunkDir holds the search index's chunks, each named by a hash of
// its content (render/search).
const SearchChunkDir = SearchDir + "c/"

// CustomScriptDir is where the build copies the repository's .js files
// when Options.CustomScripts is on.
const CustomScriptDir = "_lectern/custom/"

// IsPage reports whether file name of a built site is served as a page
// (.html, .htm) under the site's policy.
func IsPage(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".html" || ext == ".htm"
}

// ServeHeaders returns the Content-Type and the Content-Security-Policy
// that file name (a slash path in the site) must be served with: ctype is
// the type its name or content gives, pageCSP the policy of the site's
// pages. A .md file whose ctype is unknown ("" or
// application/octet-stream) is MarkdownType. Servers send
// X-Content-Type-Options: nosniff with every file.
func ServeHeaders(name, ctype, pageCSP string) (contentType, csp string) {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if IsPage(name) {
		return ctype, pageCSP
	}
	if isScriptType(ctype) && !strings.HasPrefix(name, ScriptDir) {
		return "text/plain; charset=utf-8", FileCSP
	}
	if strings.EqualFold(path.Ext(name), ".md") && (ctype == "" || strings.HasPrefix(ctype, "application/octet-stream")) {
		// A page's Markdown, which the system's table of types may not
		// know: text to read, not a file to download.
		return MarkdownType, FileCSP
	}
	return ctype, FileCSP
}

// isScriptType reports whether a browser runs a response of type ctype
// as a classic or module script: the JavaScript MIME types of the WHATWG
// MIME Sniffing standard.
func isScriptType(ctype string) bool {
	essence, _, _ := strings.Cut(ctype, ";")
	essence = strings.ToLower(strings.TrimSpace(essence))
	switch essence {
	case "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript",
		"text/ecmascript", "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
		"text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
		"text/x-ecmascript", "text/x-javascript":
		return true
	}
	return false
}

// MetaContentSecurityPolicy returns the policy of ContentSecurityPolicy as
// a <meta http-equiv> element carries it: without frame-ancestors, which
// browsers ignore there.
func (f Site) MetaContentSecurityPolicy() string {
	return metaPolicy(f.ContentSecurityPolicy())
}

func metaPolicy(csp string) string {
	var keep []string
	for _, d := range strings.Split(csp, ";") {
		d = strings.TrimSpace(d)
		if d == "" || strings.HasPrefix(d, "frame-ancestors") || strings.HasPrefix(d, "sandbox") || strings.HasPrefix(d, "report-") {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, "; ")
}

// RawHTMLCSP is the policy an export writes at the start of the
// repository's own HTML files (not pages of the navigation): nothing runs,
// also when the bundle is opened from file:// or served by a static host
// that sends no header.
const RawHTMLCSP = "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// publishedTypes are the extensions of the repository files a site
// publishes as they are: the file types Mintlify serves (images, video,
// audio, data, stylesheets, scripts, fonts, and its Enterprise plan's
// documents, data and archives), and a few more of the same kinds.
// Other files of the repository (Makefile, scripts/*.py, tests/) are not
// published unless a page links to them (render: publish.go).
var publishedTypes = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true, ".svg": true, ".ico": true, ".bmp": true,
	".mp4": true, ".webm": true, ".mov": true, ".mp3": true, ".wav": true, ".ogg": true, ".m4a": true, ".vtt": true,
	".json": true, ".yaml": true, ".yml": true, ".xml": true, ".csv": true, ".txt": true, ".pdf": true, ".zip": true,
	".css": true, ".js": true, ".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".eot": true,
	".html": true, ".htm": true, ".webmanifest": true,
}

// PublishedType reports whether a repository file of this name is
// published because of its type (publishedTypes), in any case.
func PublishedType(name string) bool {
	return publishedTypes[strings.ToLower(path.Ext(name))]
}
