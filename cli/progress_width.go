package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// This file lays out progress lines to fit the terminal. A bar is one line
// redrawn in place with \r; a line wider than the terminal wraps, and the
// next \r then goes back only to the start of the wrapped part, leaving a
// new line on screen per redraw. So every bar line is cut to the width the
// terminal has at that redraw, and below minBarWidth, where a bar with its
// figures cannot be read, progress is printed as plain lines instead.
// (github.com/schollz/progressbar, used before, shrinks only the bar,
// down to nothing, and cannot fall back to lines.)

// termWidth returns the width in columns of the terminal w writes to, or
// 0 when w is not a terminal or its size cannot be read. It is asked at
// every redraw, so that a resized window is followed without a SIGWINCH
// handler; a variable so that tests give any width.
var termWidth = func(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

const (
	// minBarWidth is the narrowest terminal that gets a bar; narrower
	// ones get plain lines.
	minBarWidth = 40
	// minBar and maxBar bound the bar itself, between its brackets: the
	// label and the extra figures give way before the bar goes below
	// minBar, and a wide terminal does not get a bar of 150 columns.
	minBar = 10
	maxBar = 40
)

// cols is the number of columns s takes. Everything shown is ASCII
// (domains are checked to be, international names being xn--), so a rune
// is a column.
func cols(s string) int { return utf8.RuneCountInString(s) }

// usable is how many columns of a terminal width a line may take: one
// less than the width, because some terminals (the Windows console among
// them) wrap as soon as the last column is written.
func usable(width int) int { return width - 1 }

// fitLabel returns the label "verb name" if it fits in room columns, else
// name alone, else name cut short with "...", else "" when room is too
// small for a readable part of it.
func fitLabel(verb, name string, room int) string {
	full := strings.TrimSpace(verb + " " + name)
	switch {
	case cols(full) <= room:
		return full
	case name == "":
		return ""
	case cols(name) <= room:
		return name
	case room >= 8:
		// A cut ending in a dot or a hyphen would read as "docs.acme....".
		return strings.TrimRight(string([]rune(name)[:room-3]), ".-") + "..."
	}
	return ""
}

// barLine lays out a bar line for a terminal of width columns:
//
//	Exporting docs.acme.com [=========>          ] 45% (120 pages)
//
// fraction is how full the bar is (0 to 1); figures are always shown
// whole; extra (a speed) is shown only if the label still fits whole with
// it. To fit, the label becomes the name alone, then a cut name, then
// nothing, and the bar narrows down to minBar. It returns false below
// minBarWidth, or if the figures leave no room for a bar: then the caller
// prints a plain line.
func barLine(width int, verb, name string, fraction float64, figures, extra string) (string, bool) {
	if width < minBarWidth {
		return "", false
	}
	avail := usable(width)
	// "label [bar] figures": the label and its space, two brackets, a
	// space, the figures.
	label := strings.TrimSpace(verb + " " + name)
	if extra != "" && cols(label)+1+2+minBar+1+cols(figures)+1+cols(extra) <= avail {
		figures += " " + extra
	}
	room := avail - 2 - 1 - cols(figures) // for the label, its space and the bar
	if label = fitLabel(verb, name, room-1-minBar); label != "" {
		room -= cols(label) + 1
		label += " "
	}
	bar := min(room, maxBar)
	if bar < minBar {
		return "", false
	}
	filled := int(min(max(fraction, 0), 1) * float64(bar))
	body := strings.Repeat("=", filled) + strings.Repeat(" ", bar-filled)
	if filled > 0 && filled < bar {
		body = strings.Repeat("=", filled-1) + ">" + strings.Repeat(" ", bar-filled)
	}
	return label + "[" + body + "] " + figures, true
}

// plainLine is a progress line printed on its own, "Exporting
// docs.acme.com: 45% (120 pages)". figures are the ways to say it, longest
// first. On a terminal (width > 0) the label gives way, then the longer
// figures, so that the line fits; if even the shortest figures do not,
// they are printed all the same, as a line ended by a newline may wrap
// without harm. In a log (width 0) the line is printed whole.
func plainLine(width int, verb, name string, figures ...string) string {
	label, fig := strings.TrimSpace(verb+" "+name), figures[0]
	if width > 0 {
		for _, fig = range figures {
			if cols(fig) <= usable(width) {
				break
			}
		}
		label = fitLabel(verb, name, usable(width)-2-cols(fig))
	}
	if label == "" {
		return fig
	}
	return label + ": " + fig
}

// redraw is a bar line on a terminal: the line on screen, not yet ended
// by a newline.
type redraw struct {
	w     io.Writer
	shown string // "" when no bar is on screen
}

// draw replaces the bar on screen by line, padded with spaces over what
// is left of a longer previous one (spaces rather than an erase escape,
// which not every console understands), never beyond the usable width.
func (r *redraw) draw(line string, width int) {
	if line == r.shown {
		return
	}
	pad := max(min(cols(r.shown), usable(width))-cols(line), 0)
	fmt.Fprint(r.w, "\r"+line+strings.Repeat(" ", pad))
	r.shown = line
}

// end leaves the bar on screen, if one is shown, on its own line, so that
// what is printed next starts on a line of its own.
func (r *redraw) end() {
	if r.shown != "" {
		fmt.Fprintln(r.w)
		r.shown = ""
	}
}

// clear takes the bar off the screen, leaving the cursor at the start of
// its line (a bar that has done its work: lectern build's).
func (r *redraw) clear() {
	if r.shown != "" {
		fmt.Fprint(r.w, "\r"+strings.Repeat(" ", cols(r.shown))+"\r")
		r.shown = ""
	}
}
