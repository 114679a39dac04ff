package diag

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"lectern.dev/lectern"
)

// Warning is a non-fatal problem of the source, with file and line when
// known (Line 0 when not).
type Warning struct {
	File    string
	Line    int
	Message string
}

// String formats the warning as "file:line: message", leaving out the
// parts that are unknown.
func (w Warning) String() string {
	switch {
	case w.File == "":
		return w.Message
	case w.Line <= 0:
		return w.File + ": " + w.Message
	}
	return w.File + ":" + strconv.Itoa(w.Line) + ": " + w.Message
}

// Warner collects warnings, once each, in the order they are found.
type Warner struct {
	list []Warning
	seen map[Warning]bool
	// Mute suppresses warnings while positive (a second render of a page).
	Mute    int
	perFile map[string]int
}

// maxWarningsPerFile bounds the warnings kept for one file; a summary
// warning says when more were left out.
const maxWarningsPerFile = 50

// maxMessage bounds a warning's message, which may quote the source (a
// link, an import, a page name) in bytes.
const maxMessage = 1024

func (w *Warner) Add(file string, line int, format string, args ...any) {
	if w.Mute > 0 {
		return
	}
	wa := Warning{File: file, Line: line, Message: lectern.Truncate(fmt.Sprintf(format, args...), maxMessage)}
	if w.seen == nil {
		w.seen = map[Warning]bool{}
		w.perFile = map[string]int{}
	}
	if w.seen[wa] {
		return
	}
	w.seen[wa] = true
	w.perFile[file]++
	switch n := w.perFile[file]; {
	case n == maxWarningsPerFile+1:
		wa = Warning{File: file, Message: moreWarningsMessage}
	case n > maxWarningsPerFile:
		return
	}
	w.list = append(w.list, wa)
}

// Sorted returns the warnings grouped by file, files in the order their
// first warning was found, and by line within a file.
func (w *Warner) Sorted() []Warning {
	order := map[string]int{}
	for _, wa := range w.list {
		if _, ok := order[wa.File]; !ok {
			order[wa.File] = len(order)
		}
	}
	out := append([]Warning(nil), w.list...)
	sort.SliceStable(out, func(i, j int) bool {
		if oi, oj := order[out[i].File], order[out[j].File]; oi != oj {
			return oi < oj
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Merge adds warnings found by a page's own Warner, as if they had been
// found by w: once each, at most maxWarningsPerFile per file.
func (w *Warner) Merge(list []Warning) {
	for _, wa := range list {
		if wa.Line == 0 && wa.Message == moreWarningsMessage {
			// The page alone had more than the limit for this file: w
			// has (at least) as many.
			if w.seen == nil {
				w.seen, w.perFile = map[Warning]bool{}, map[string]int{}
			}
			w.perFile[wa.File] = max(w.perFile[wa.File], maxWarningsPerFile)
		}
		w.Add(wa.File, wa.Line, "%s", wa.Message)
	}
}

// moreWarningsMessage is the summary Warner.Add puts after the last
// warning kept for a file.
const moreWarningsMessage = "more warnings for this file were left out"

// List returns the warnings in the order they were found.
func (w *Warner) List() []Warning { return w.list }

// FirstLine returns the first line of s, cut to at most n bytes (at a
// character boundary, with "…"), for quoting content in a message.
func FirstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return lectern.Truncate(s, n)
}
