package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dustin/go-humanize"
	"golang.org/x/term"

	"lectern.dev/lectern/client"
)

const (
	// lineEvery is how often, at most, progress is printed as a plain line
	// when its figures change: for an export, in a log or in a terminal
	// too narrow for a bar; for a download, in such a terminal. A change
	// of an export's status is printed at once: there are at most three.
	lineEvery = time.Second
	// logEvery is how often, at most, a download's progress is printed
	// when the output is not a terminal (a CI log): its figures change
	// with every read, so once a second would fill the log.
	logEvery = 5 * time.Second
)

// onTerminal reports whether w is a terminal (not a pipe, a file or
// /dev/null).
func onTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// exportProgress shows an export job's progress on w: on a terminal at
// least minBarWidth wide (asked at every update), a bar with the
// percentage and the page count; otherwise plain lines, printed when the
// figures change. With quiet, it shows nothing.
type exportProgress struct {
	w     io.Writer
	tty   bool
	quiet bool
	now   func() time.Time

	bar         redraw
	lastStatus  client.ExportState
	lastFigures string
	lastLine    time.Time
}

func newExportProgress(w io.Writer, tty, quiet bool) *exportProgress {
	// The bar is redrawn once per poll, which is seldom enough: no
	// throttle, so that the percentage and the pages always match.
	return &exportProgress{w: w, tty: tty, quiet: quiet, now: time.Now, bar: redraw{w: w}}
}

func (p *exportProgress) update(job *client.ExportJob) {
	if p.quiet {
		return
	}
	figures := exportFigures(job)
	width := 0
	if p.tty {
		width = termWidth(p.w)
	}
	if line, ok := barLine(width, "Exporting", job.Domain, float64(job.Progress)/100, figures, ""); ok {
		p.bar.draw(line, width)
		return
	}
	p.bar.end()
	now := p.now()
	if figures == p.lastFigures || job.Status == p.lastStatus && now.Sub(p.lastLine) < lineEvery {
		return
	}
	fmt.Fprintln(p.w, plainLine(width, "Exporting", job.Domain, figures))
	p.lastStatus, p.lastFigures, p.lastLine = job.Status, figures, now
}

// exportFigures is what an export's progress shows beside its domain:
// "45% (120 pages)", with the status when it is neither running nor
// completed.
func exportFigures(job *client.ExportJob) string {
	done := fmt.Sprintf("%d%% (%s)", job.Progress, pages(job.PageCount))
	switch job.Status {
	case client.ExportRunning, client.ExportCompleted:
		return done
	case client.ExportQueued, "":
		return "queued"
	}
	return fmt.Sprintf("%s at %s", job.Status, done)
}

func pages(n int) string {
	if n == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", n)
}

// finish ends the bar, if one is shown, on its own line.
func (p *exportProgress) finish() {
	p.bar.end()
}

// byteProgress shows a download's progress on w: on a terminal at least
// minBarWidth wide, a bar with bytes and speed; otherwise a line at most
// every lineEvery (a narrow terminal) or logEvery (a log), and one at the
// end. With quiet, it shows nothing.
type byteProgress struct {
	w        io.Writer
	tty      bool
	quiet    bool
	now      func() time.Time
	throttle time.Duration // between two redraws of the bar

	bar      redraw
	start    time.Time
	lastDraw time.Time
	lastLine time.Time
	done     int64
	total    int64
}

func newByteProgress(w io.Writer, tty, quiet bool) *byteProgress {
	return &byteProgress{w: w, tty: tty, quiet: quiet, now: time.Now, throttle: 100 * time.Millisecond, bar: redraw{w: w}}
}

// update is a client.Download progress function.
func (p *byteProgress) update(done, total int64) {
	if p.quiet {
		return
	}
	p.done, p.total = done, total
	now := p.now()
	if p.start.IsZero() {
		p.start, p.lastLine = now, now
	}
	pct := fmt.Sprintf("%d%%", percent(done, total))
	figures := fmt.Sprintf("%s (%s of %s)", pct, humanize.Bytes(uint64(done)), humanize.Bytes(uint64(total)))
	width := 0
	if p.tty {
		width = termWidth(p.w)
	}
	speed := ""
	if elapsed := now.Sub(p.start).Seconds(); elapsed > 0 {
		speed = humanize.Bytes(uint64(float64(done)/elapsed)) + "/s"
	}
	if line, ok := barLine(width, "Downloading", "", float64(percent(done, total))/100, figures, speed); ok {
		// The last redraw is never skipped: the bar ends full.
		if now.Sub(p.lastDraw) >= p.throttle || done >= total || p.bar.shown == "" {
			p.bar.draw(line, width)
			p.lastDraw = now
		}
		return
	}
	p.bar.end()
	every := logEvery
	if width > 0 {
		every = lineEvery
	}
	if now.Sub(p.lastLine) >= every && done < total {
		fmt.Fprintln(p.w, plainLine(width, "Downloading", "", figures, pct))
		p.lastLine = now
	}
}

// finish ends the bar, or prints the final line.
func (p *byteProgress) finish(ok bool) {
	switch {
	case p.quiet:
	case p.bar.shown != "":
		p.bar.end()
	case ok:
		fmt.Fprintf(p.w, "Downloaded %s\n", humanize.Bytes(uint64(p.done)))
	}
}

func percent(done, total int64) int64 {
	if total <= 0 {
		return 100
	}
	return done * 100 / total
}
