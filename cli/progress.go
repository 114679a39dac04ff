package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"lectern.dev/lectern/client"
)

// plainEvery is how often progress is printed as a line when the output is
// not a terminal (a CI log): on every change of state, and otherwise at
// most this often.
const plainEvery = 5 * time.Second

// onTerminal reports whether w is a terminal (not a pipe, a file or
// /dev/null).
func onTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// exportProgress shows an export job's progress on w: a bar with the
// percentage and the page count on a terminal; otherwise a line when the
// status changes and at most every plainEvery while it runs. With quiet,
// it shows nothing.
type exportProgress struct {
	w     io.Writer
	tty   bool
	quiet bool
	now   func() time.Time

	bar        *progressbar.ProgressBar
	lastStatus client.ExportState
	lastLine   time.Time
	lastShown  int
}

func newExportProgress(w io.Writer, tty, quiet bool) *exportProgress {
	// The bar is redrawn once per poll, which is seldom enough: no
	// throttle, so that the percentage and the pages always match.
	return &exportProgress{w: w, tty: tty, quiet: quiet, now: time.Now, lastShown: -1}
}

func (p *exportProgress) update(job *client.ExportJob) {
	if p.quiet {
		return
	}
	if p.tty {
		if p.bar == nil {
			p.bar = progressbar.NewOptions(100, progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription("exporting "+job.Domain), progressbar.OptionSetWidth(30),
				progressbar.OptionSetPredictTime(false), progressbar.OptionShowElapsedTimeOnFinish(),
				progressbar.OptionSetRenderBlankState(true),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }))
		}
		p.bar.Describe(fmt.Sprintf("exporting %s: %s, %d pages", job.Domain, job.Status, job.PageCount))
		if job.Status == client.ExportCompleted {
			p.bar.Set(100)
		} else {
			p.bar.Set(min(job.Progress, 99))
		}
		return
	}
	now := p.now()
	changed := job.Status != p.lastStatus
	if changed || job.Progress != p.lastShown && now.Sub(p.lastLine) >= plainEvery {
		fmt.Fprintf(p.w, "export %s: %s, %d%%, %d pages\n", job.JobID, job.Status, job.Progress, job.PageCount)
		p.lastStatus, p.lastLine, p.lastShown = job.Status, now, job.Progress
	}
}

// finish ends the bar, if one is shown, on its own line.
func (p *exportProgress) finish() {
	if p.bar != nil && !p.bar.IsFinished() {
		p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}

// byteProgress shows a download's progress on w: a bar with bytes and
// speed on a terminal, otherwise a line at most every plainEvery and one
// at the end. With quiet, it shows nothing.
type byteProgress struct {
	w        io.Writer
	tty      bool
	quiet    bool
	now      func() time.Time
	throttle time.Duration // between two redraws of the bar

	bar      *progressbar.ProgressBar
	lastLine time.Time
	done     int64
	total    int64
}

func newByteProgress(w io.Writer, tty, quiet bool) *byteProgress {
	return &byteProgress{w: w, tty: tty, quiet: quiet, now: time.Now, throttle: 100 * time.Millisecond}
}

// update is a client.Download progress function.
func (p *byteProgress) update(done, total int64) {
	if p.quiet {
		return
	}
	p.done, p.total = done, total
	if p.tty {
		if p.bar == nil {
			p.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription("downloading"),
				progressbar.OptionShowBytes(true), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
				progressbar.OptionSetRenderBlankState(true), progressbar.OptionThrottle(p.throttle),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }))
		}
		p.bar.Set64(done)
		return
	}
	now := p.now()
	if p.lastLine.IsZero() {
		p.lastLine = now
		return
	}
	if now.Sub(p.lastLine) >= plainEvery && done < total {
		fmt.Fprintf(p.w, "downloading: %s of %s (%d%%)\n", humanize.Bytes(uint64(done)), humanize.Bytes(uint64(total)), percent(done, total))
		p.lastLine = now
	}
}

// finish ends the bar, or prints the final line.
func (p *byteProgress) finish(ok bool) {
	switch {
	case p.quiet:
	case p.bar != nil:
		if !p.bar.IsFinished() {
			p.bar.Exit()
			fmt.Fprintln(p.w)
		}
	case ok:
		fmt.Fprintf(p.w, "downloaded %s\n", humanize.Bytes(uint64(p.done)))
	}
}

func percent(done, total int64) int64 {
	if total <= 0 {
		return 100
	}
	return done * 100 / total
}
