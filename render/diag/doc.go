// Package diag collects the warnings of a build: problems of the source,
// with file and line, that leave a usable site (an unknown component, a
// broken link, a missing image).
//
// A Warner keeps each warning once, in the order found, at most
// 50 per file (then one summary), and can be muted while a
// page is rendered a second time. Workers that render pages in parallel
// each have their own Warner; Merge adds what they found to the build's.
//
// It knows nothing of what produced a warning.
package diag
