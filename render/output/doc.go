// Package output is where a build's files go: the Output interface that
// render.Build writes to, and Dir, which writes them to a folder.
//
// Dir replaces each file atomically (a temporary file renamed over it),
// leaves a file alone when its content is unchanged, writes a file from
// parts of another (Part: the search index spliced from the previous one),
// and, for the rebuild cache, keeps or hard-links the files of a previous
// build (Keeper, FileInfo), reading kept files mapped into memory.
//
// It knows nothing of pages, MDX or the cache's records: names are clean
// slash-separated paths relative to the site root, and data is bytes.
package output
