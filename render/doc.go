// Package render turns a Mintlify-format documentation tree (docs.json or
// legacy mint.json, plus .mdx and .md pages) into a static site.
//
// Build is the only entry point. It reads the source from an fs.FS, writes
// every produced file to an Output (output.Dir writes to a folder) and returns
// a Result with counts and Warnings. The same build serves two forms:
//
//   - live (Options.Export false): internal links are absolute, extensionless
//     paths under Options.BasePath ("/docs/guides/x"), for Lectern's server,
//     which maps them to the .html files;
//   - export (Options.Export true): internal links are relative and point at
//     .html files, so the folder works from file:// and any static server.
//
// # Output layout
//
// Each navigation page is written to <page>.html ("guides/x" → guides/x.html);
// index.html is the "index" page or, without one, a copy of the first
// navigation page. The build also writes 404.html, sitemap.xml, robots.txt,
// the theme assets under _lectern/ (style.css, site.js, the scripts of the
// features such as search.js, search-index.json)
// and every non-page file of the source (images, logos, favicon, specs),
// except .mdx, .md, docs.json, mint.json and dot-files (an export also
// leaves out SVG and XML files that could run script: activefile.go). Each
// page shows the sidebar of its section: all of it up to 1,000 entries, a
// window around the page beyond (sidebar_window.go), so that the output
// grows linearly with the pages. Pages never load
// anything from another host (only the assistant and the analytics, when
// configured, send to their endpoints): images, iframes and videos that
// point at one are turned into plain links.
//
// # Site features
//
// Search, the AI assistant, web analytics and the "Try it" playground are
// optional (Options.Features; search and the playground by default). The
// markup, scripts and styles of each are written between markers, so that
// features.Site.Transform can remove or configure them after the build, and
// pages have no inline script or event handler, so that they work under
// features.Site.ContentSecurityPolicy (render/features).
//
// # Active content
//
// Pages run Lectern's scripts only. Every URL written into a page goes
// through one allow-list (render/safe: relative, fragment, http, https,
// mailto, tel; data: only for images), event handlers and srcdoc are
// dropped, each with a warning; ServeHeaders (render/features) says how servers
// send each file of a site (pages under the site's policy, other files
// sandboxed, the repository's JavaScript as text/plain), and exports carry
// the policy in a meta element. Options.CustomScripts loads the
// repository's .js files on every page, as Mintlify does
// (custom_scripts.go).
//
// # Errors and warnings
//
// Build fails, with a *lectern.Error of code lectern.EINVALID naming the file,
// only when the site would be unusable: neither a configuration nor any page,
// a configuration that is not valid JSON, or a navigation entry whose page
// does not exist. Everything else that is wrong in the content (an unknown
// component, an import that cannot be resolved, a missing image, a broken
// link, an expression that cannot be evaluated) is reported as a Warning with
// file and line, and the page is still produced.
//
// # How MDX is handled
//
// Lectern does not run JavaScript. MDX is read by a small scanner of its own
// (render/mdx, render/mdx) that understands the parts of MDX that
// documentation sites use: fenced code and code spans (left literal), JSX
// elements (capitalised components and lowercase HTML, self-closing or with
// children, nested, attributes as "strings", {expressions} and bare
// booleans), {/* comments */}, {expressions}, imports of .mdx/.md snippets
// (render/mdx) and components exported as arrow functions returning JSX
// (export const Name = ({ a, b }) => (<JSX/>)); other exports are ignored
// with a warning. The scanner yields a tree of text, element and expression
// nodes. Expressions are evaluated without running code (render/mdx):
// literals, arrays, objects, JSX and the props of the component being
// rendered; anything else is shown as written, with a warning.
//
// Markdown and JSX meet in a goldmark extension (render/markdown). To
// render a list of nodes (a flow), its text is handed to goldmark as
// Markdown in which each element, JSX value and raw HTML stands as an
// inset token; the extension's block parser turns a token alone on its
// line into an MDXBlock node (which can interrupt a paragraph and sit in
// list items and quotes), its inline parser turns any other into an
// MDXInline node (in paragraphs, headings, link texts, table cells), and
// its node components.Renderer writes the element's HTML in their place, rendering
// the element's children the same way, recursively. goldmark itself runs
// with GitHub-flavoured Markdown, heading ids, no indented code blocks (as
// in MDX) and without its raw-HTML parsers: in MDX every tag is JSX, so
// tags reach goldmark only as insets, and a "<" that the scanner did not
// read as a tag is text. JSX therefore cannot be mis-parsed as Markdown or
// HTML, while the Markdown around and inside components follows
// CommonMark. Known components (render/components) become semantic HTML with
// classes named lc-<kebab-name>; unknown ones produce a Warning and their
// children are still shown.
//
// # Extending
//
// Config and the Nav tree (render/config, render/config) keep everything the theme needs
// today; later work adds fields rather than changing these. Links are
// resolved in one place (render/links) against pages, copied files and the
// configuration's redirects. Components are a
// table in render/components, the theme lives in theme/ (html/template, CSS, JS)
// and is embedded, and per-page output goes through one place (page_view.go),
// so OpenAPI pages, syntax highlighting or a search UI can be added without
// touching the MDX pipeline.
package render
