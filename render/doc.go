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
// Each page of the repository is written to <page>.html ("guides/x" →
// guides/x.html): those of the navigation, and the others as unlisted
// pages, in no sidebar, search index or sitemap (unlisted.go); index.html
// is the "index" page of the navigation or, without one, a copy of its
// first page. Beside each page is its Markdown, <page>.md (guides/x.md,
// index.md; page_markdown.go, render/pagemd), and at the root llms.txt and
// llms-full.txt (llms.go), unless the repository has its own. The build
// also writes 404.html, sitemap.xml, robots.txt, the theme assets under
// _lectern/ (style.css, site.js, contextual.js for the pages' "Copy page"
// button and menu, the scripts of the features such as search.js, each
// under a name with a hash of its content, style.0123456789.css, that
// pages link to: own_assets.go; and the search index under
// _lectern/search/) and the non-page files of the
// source a site publishes: those of web
// types, and others a page links to (publish.go), but not docs.json,
// mint.json, dot-files or what .mintignore leaves out (ignore.go); an
// export also leaves out SVG and XML files that could run script
// (activefile.go). Each
// page shows the sidebar of its section: all of it up to 250 entries; past
// that, its own group, and site.js draws the rest from the section's
// navigation file under _lectern/nav/ (render/layout), so that the output
// grows linearly with the pages. Pages never load
// anything from another host (only the assistant and the analytics, when
// configured, send to their endpoints): images that point at one are
// turned into plain links, iframes and videos into poster cards linking to
// the video (render/components, media.go), except, on live sites, the
// iframes of the hosts features.Site.EmbedHosts allows.
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
// (custom_scripts.go); every page links the repository's .css files
// (custom_css.go), which, like the rest of the page, load nothing from
// other hosts.
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
// # The packages
//
// Build (this package) orchestrates; each step is a package of its own,
// and a package imports only those of lower layers (layers_test.go keeps
// it so). From the bottom:
//
//   - layer 0, knowing nothing of the others: diag (warnings), limits (a
//     build's budgets and the error that ends a build over one), output
//     (where files go: Output, the folder writer Dir), highlight (fenced
//     code to highlighted HTML, and its on-disk store), icons (Font
//     Awesome, Lucide and brand icons as inline SVG), safe (the allow-list of URLs,
//     attributes and colours), features (optional features, their
//     markers, Transform, the serving policy and the content-hash names
//     of Lectern's own assets), openapi (OpenAPI documents to operation
//     pages);
//   - layer 1: config (docs.json, mint.json or the folder tree to Config
//     and the Nav tree), mdx (MDX source to a tree of text, elements and
//     expressions; snippet imports and exported components), search (the
//     table of contents and the search index: pages' words and
//     fragments, the index's files, queries);
//   - layer 2: links (links resolved against pages, files and redirects,
//     and the URLs written for live sites and exports), markdown
//     (goldmark with the MDX inset extension), page (a page's source,
//     front matter and title);
//   - layer 3: components (the MDX tree of a page to HTML: every Mintlify
//     component, HTML elements, snippets and exported components), pagemd
//     (the same tree to clean Markdown, for PAGE.md and llms-full.txt),
//     layout (the page around the body: header, navigation, sidebar, footer,
//     404.html, and the theme's assets, over a layout.Site the build
//     fills), cache (what the rebuild cache keeps: manifest, codec,
//     stamps, the previous build's state);
//   - layer 4, this package: the build itself (build.go, scan.go,
//     parallel.go: scan the source, load the configuration and pages,
//     render pages on all cores; ignore.go, unlisted.go, publish.go: what
//     the site holds), OpenAPI pages (openapi_nav.go, openapi_page.go,
//     openapi_examples.go), redirects, the site's other files
//     (site_files.go, own_assets.go, page_markdown.go, llms.go,
//     activefile.go, custom_scripts.go, custom_css.go, banner.go,
//     mermaid.go) and which pages the rebuild cache reuses
//     (rebuild*.go).
//
// What flows through them: source tree → config (Config, Nav) → page
// (front matter, title) → mdx (a Module per file) → components (HTML of
// the body, through markdown and highlight, links through links) →
// layout (the page around the body) → output (Dir), with pagemd writing
// the same tree as the page's Markdown, search collecting each page's
// entry and cache recording what each page read and wrote.
//
// # Where to add
//
//   - a component: its function in the table of render/components
//     (components.go), and a page using it to its golden test
//     (render/components: golden_test.go, testdata/golden), which fails
//     for a component without one; and its Markdown in render/pagemd's
//     table (components.go), or its content is its Markdown;
//   - a navigation form: render/config (nav.go), as a new NavKind, then
//     the sidebar and selectors of render/layout (page_view.go,
//     sidebar.go);
//   - an output file: writeSiteFiles (site_files.go) writes every file
//     other than the pages; one of Lectern's own under _lectern/ is
//     named by its content (own_assets.go: prepareAssets), and a file of
//     a feature is named in render/features (Files) so that Transform can
//     drop it.
//
// # How MDX is handled
//
// Lectern does not run JavaScript. render/mdx reads the parts of MDX that
// documentation sites use: fenced code and code spans (left literal), JSX
// elements, {/* comments */}, {expressions}, imports of .mdx/.md snippets
// and .jsx modules, and exported components and constants. Expressions and
// the bodies of components (const, if, return) are evaluated without
// running code: literals, arrays, objects, JSX, props, the file's
// constants and functions, operators, map/filter/join and a few built-ins,
// within a per-page budget (mdx.Budget); anything else is shown as
// written, with a warning, and a component that needs JavaScript to run
// is a visible placeholder with a warning. Markdown
// and JSX meet in render/markdown's goldmark extension, in which each
// element stands as an inset token: goldmark decides the Markdown
// structure around elements, and JSX never reaches its parsers. Known
// components become semantic HTML with classes named lc-<kebab-name>
// (docs/components.md lists them); unknown ones produce a Warning and
// their children are still shown.
package render
