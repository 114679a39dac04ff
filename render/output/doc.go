// Package output is where a build's files go: the Output interface that
// render.Build writes to, and Dir, which writes them to a folder.
//
// Dir replaces each file atomically (a temporary file renamed over it),
// leaves a file alone when its content is unchanged, and, for the rebuild
// cache, keeps, hard-links or reads the files of a previous build (Keeper,
// FileInfo).
//
// It knows nothing of pages, MDX or the cache's records: names are clean
// slash-separated paths relative to the site root, and data is bytes.
package output
