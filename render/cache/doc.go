// Package cache is what the incremental rebuild cache keeps between
// builds, and how: the manifest (Manifest, its records of pages, sources
// and copied files, and its binary codec), the previous build's manifest
// read in the background (State), the stamps that spare reading
// unchanged sources (Stamp, stamp_*.go) and the files a build writes to
// an output folder (Tracker). It does not decide which page to reuse:
// render does (rebuild*.go), from these records.
//
// The build cache (render.Options.CacheDir) makes a rebuild after a small change
// re-render only the pages whose inputs changed. Its manifest records,
// for each page, the hashes of its inputs and the size and modification
// time of its output file, its search entry (as encoded JSON) and its
// warnings; for each source file read (pages and snippets), its stamp
// (below), its content hash and, for a page, what loading it produced
// (front matter, title, warnings); for each copied non-page file, its
// source's stamp and its output file. A page is reused when:
//
//   - the build's key is the same: cache format, renderer binary (path,
//     size, modification time), options, configuration file, the list of
//     source files and the size and modification time of every non-page
//     file (a new page, a removed one, a changed image or spec rebuilds
//     everything);
//   - the page's source and every snippet it imported have the same hash;
//   - its context is the same: what the sidebar of its section shows of
//     the pages (titles, sidebar titles, icons, hidden pages: hashed
//     without rendering the sidebar, layout.Theme.SidebarSum) and the titles
//     and paths of the previous and next pages;
//   - the Output still holds the files the previous build wrote for it,
//     PAGE.html and PAGE.md (output.Dir: same size and modification time,
//     in Dir or, linked from there, in Prev).
//
// Otherwise the page is rendered again.
//
// # Stamps: not reading unchanged sources
//
// A source file is not read again when its stamp is the one recorded: size,
// modification time, change time (ctime) and device and inode numbers, as
// the file system reports them (stamp_*.go). The change time cannot
// be set by programs (touch, tar, rsync and git set the modification time
// only, and any write or utimes call sets the change time to the current
// time), so a same-size edit that restores the modification time still
// changes the stamp. A stamp is trusted only when the file's change and
// modification times are more than StampSlack before the start of the
// build that recorded it, so that an edit in the same clock tick as a
// recorded one (coarse file system timestamps) is never missed: such a
// file is read and hashed again, as is every file of an fs.FS that reports
// no change time (fstest.MapFS, embed.FS, other systems than Linux). The
// reasoning: the build that recorded a stamp statted the file after its
// start; an edit after that stat gets a change time after it, which
// differs from the recorded one unless both fall in one tick of the file
// system's clock, which the slack excludes. The accepted limitations are
// a clock that goes back by more than the slack, and a file system (a
// network one) whose clock is behind this machine's by more than it.
//
// A page whose source is not read is loaded from its manifest record (its
// front matter without the raw key table, title, body line, warnings); its
// body is read only if the page has to be rendered (site.ensureBody). The
// record is reused as well when the stamp changed but the content hash did
// not (a file touched or checked out again), which saves the YAML parsing.
//
// Everything else (404.html, sitemap, theme files) is written by every
// build, and left alone when it holds the same bytes. index.html and
// index.md, when they are a copy of the first page, are kept with that
// page. llms-full.txt, made of every page's Markdown, is kept when no page
// was rendered again and its pages and their URLs are the same; else it is
// made again, each kept page's entry copied from the previous file (its
// place there is in the page's record: Page.FullOff). The search index's
// fragments are kept with their pages; its meta file and chunks are left
// alone when no page's words changed, and else patched (search.Update):
// only the chunks holding a word whose frequency changed are written. A
// copied non-page file whose source stamp is unchanged is kept (output.Dir:
// in Dir, or linked from Prev) rather than read and written again. The
// highlighted HTML of code blocks is kept by content, so that a page
// rendered again does not lex its unchanged code (highlight.Store).
//
// # Updating the output in place
//
// lectern build with a cache updates its output folder in place
// (output.Dir.Update) rather than building a new folder and swapping it in:
// replacing a folder of 10,000 pages costs more than rendering the page
// that changed. What a folder swap guaranteed is kept as follows:
//
//   - Nothing is written before the source is loaded: the errors that make
//     a site unusable (Build's EINVALID errors) leave the output and the
//     cache as they were.
//   - Before the first write, the manifest is marked as being updated (one
//     byte at a fixed offset: manifestStateOffset). A build that ends
//     before it writes the new manifest (an error, an interruption) leaves
//     the mark, and the next build trusts nothing of the output: every
//     page is rendered and every file written again (lectern build then
//     builds a new folder and swaps it in, UpdateReady). The sources'
//     records, which do not depend on the output, are still used.
//   - Each file is replaced atomically (output.Dir.Update), and a file that
//     already holds the content to write is not touched, so a server of
//     the folder never sees a partial file.
//   - The manifest lists every file the build put in the output
//     (Outputs, the pages' files and the assets), and the folder it wrote
//     into (Dir: device and inode, which a rename keeps). An update removes
//     the files the previous build into the same folder listed and this
//     one no longer produces, then the folders they leave empty.
//
// Given up: while an update runs, and after one that failed, the folder
// can hold a mix of old and new files (each of them whole): a page whose
// neighbour was renamed can link to a page that is gone or not there yet.
// The marker is not synced to disk: it covers an interrupted process, not
// a machine that loses power (whose unsynced output files are not whole
// either); the stamps of the output files still show which were rewritten.
package cache
