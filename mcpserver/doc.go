// Package mcpserver serves the Model Context Protocol for one docs site,
// so that AI agents and editors can search the docs and read their pages:
// Handler answers Streamable HTTP (the official Go SDK,
// github.com/modelcontextprotocol/go-sdk) with two tools over a Site:
//
//   - search (Info.Search): passages of the site's pages for a query,
//     best first, each with its page's title, the section's heading, URL
//     and page path, and an excerpt, as text and as structured content.
//     It runs the assistant's retrieval (assistant.Retrieve) on the
//     deployment's search index, so it exists only where search does:
//     never on an air-gapped deployment.
//   - get_page: a page's Markdown, the file the build writes beside each
//     page (x.md beside x.html), cut at MaxPage with a note saying so. It
//     needs nothing else, and is on every site.
//
// FSSite is a Site over a built site's files and search index; callers
// (live sites, lectern selfhost) route a path of theirs to Handler.
//
// Safety:
//
//   - Stateless: each POST is a request of its own (the SDK's stateless
//     mode, required by protocol revision 2026-07-28 and accepted from
//     clients of earlier revisions); the server keeps no session, so any
//     process serving the site answers any request, and GET (a stream of
//     server messages) and DELETE answer 405.
//   - Bounded: request bodies of at most MaxBody (413 past it), at most
//     10 search results with excerpts of about 1 KiB, pages of at most
//     MaxPage, arguments of bounded length.
//   - get_page's argument is untrusted: it is decoded once, then a path
//     with "..", "." or empty parts, a backslash, a control character or
//     a part starting with "." is refused, a full URL must be of the
//     site's host (when Info.URL names it), and only "<page>.md" or
//     "<page>/index.md", regular files of the site's fs.FS, are read.
//     Give FSSite an os.Root's FS so that links cannot lead out of it.
//   - Errors: bad input, an unknown page and an empty query are tool
//     errors (isError results) saying what to do; errors of the Site
//     itself are reported without their text (no file paths leave).
//   - Origins: the SDK's DNS-rebinding check (loopback address with
//     another Host) is off: the tools read only the public pages the
//     site serves anyway, and the check would refuse every request that a
//     reverse proxy on the same machine forwards. Browsers' cross-origin
//     requests are refused (http.CrossOriginProtection), and no CORS
//     header is sent, so other sites' pages cannot use the endpoint from
//     their readers' browsers; non-browser clients are unaffected.
//   - Rate limits are the caller's, as for the assistant's endpoint.
package mcpserver
