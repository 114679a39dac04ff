package cli

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/client"
)

// fakeWidth makes every progress shown on a terminal see the width *w,
// read again at each update as the real one is.
func fakeWidth(t *testing.T, w *int) {
	t.Helper()
	old := termWidth
	termWidth = func(io.Writer) int { return *w }
	t.Cleanup(func() { termWidth = old })
}

// fakeClock makes p's clock one that step moves on.
func fakeClock(now *func() time.Time) (step func(time.Duration)) {
	t := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	*now = func() time.Time { return t }
	return func(d time.Duration) { t = t.Add(d) }
}

// checkFits fails if a line of out, as a terminal shows it (cut at every
// \r and \n), would reach the last column of a terminal width wide, where
// some terminals wrap.
func checkFits(t *testing.T, out string, width int) {
	t.Helper()
	for _, line := range regexp.MustCompile("[\r\n]").Split(out, -1) {
		if cols(line) >= width {
			t.Errorf("width %d: a line of %d columns: %q", width, cols(line), line)
		}
	}
}

var barRE = regexp.MustCompile(`\[([=> ]*)\]`)

// An export's bar fits any terminal: redrawn in place, never reaching the
// last column, with a bar of at least minBar from minBarWidth up; below
// it, plain lines that fit too.
func TestExportProgressFitsEveryWidth(t *testing.T) {
	width := 0
	fakeWidth(t, &width)
	for _, domain := range []string{"docs.acme.test", "developer-documentation.a-rather-long-company-name.example"} {
		for _, width = range []int{20, 39, 40, 60, 80, 200} {
			var buf bytes.Buffer
			p := newExportProgress(&buf, true, false)
			step := fakeClock(&p.now)
			for _, j := range []client.ExportJob{
				{Status: client.ExportQueued},
				{Status: client.ExportRunning, Progress: 5, PageCount: 12},
				{Status: client.ExportRunning, Progress: 45, PageCount: 120},
				{Status: client.ExportRunning, Progress: 90, PageCount: 1234},
				{Status: client.ExportCompleted, Progress: 100, PageCount: 1234},
			} {
				step(2 * time.Second)
				j.JobID, j.Domain = "exp_1", domain
				p.update(&j)
			}
			beforeFinish := buf.String()
			p.finish()
			out := buf.String()
			checkFits(t, out, width)
			if !strings.Contains(out, "45% (120 pages)") || !strings.Contains(out, "100% (1234 pages)") {
				t.Errorf("width %d: figures missing: %q", width, out)
			}
			if width < minBarWidth {
				if strings.Contains(out, "\r") || barRE.MatchString(out) || strings.Count(out, "\n") != 5 {
					t.Errorf("width %d: want 5 plain lines, no bar: %q", width, out)
				}
				continue
			}
			if strings.Contains(beforeFinish, "\n") || !strings.HasSuffix(out, "\n") || strings.Count(out, "\r") != 5 {
				t.Errorf("width %d: want a bar redrawn in place 5 times, then a newline: %q", width, out)
			}
			for _, m := range barRE.FindAllStringSubmatch(out, -1) {
				if n := len(m[1]); n < minBar {
					t.Errorf("width %d: a bar of %d columns: %q", width, n, m[0])
				}
			}
			if width >= 80 && domain == "docs.acme.test" && !strings.Contains(out, "Exporting docs.acme.test [") {
				t.Errorf("width %d: label missing: %q", width, out)
			}
		}
	}
}

// A resized terminal is followed at the next update: a bar, plain lines
// once narrower than minBarWidth (the bar left on its own line first),
// and a bar again once wide.
func TestExportProgressFollowsResize(t *testing.T) {
	width := 80
	fakeWidth(t, &width)
	var buf bytes.Buffer
	p := newExportProgress(&buf, true, false)
	step := fakeClock(&p.now)
	at := func(w, pct int) {
		width = w
		step(2 * time.Second)
		p.update(&client.ExportJob{Domain: "docs.acme.test", Status: client.ExportRunning, Progress: pct, PageCount: pct})
	}
	at(80, 10)
	at(35, 20)
	at(35, 30)
	at(80, 40)
	p.finish()
	out := buf.String()
	want := regexp.MustCompile(`^\rExporting docs\.acme\.test \[=+> +\] 10% \(10 pages\)\n` +
		`docs\.acme\.test: 20% \(20 pages\)\n` +
		`docs\.acme\.test: 30% \(30 pages\)\n` +
		`\rExporting docs\.acme\.test \[=+> +\] 40% \(40 pages\)\n$`)
	if !want.MatchString(out) {
		t.Fatalf("output %q", out)
	}
}

// A shorter bar line (a narrower window) is padded over the longer one it
// replaces, never beyond the usable width.
func TestBarRedrawPadsOverLongerLine(t *testing.T) {
	var buf bytes.Buffer
	r := redraw{w: &buf}
	r.draw("0123456789", 80)
	r.draw("xy", 6)
	r.draw("xy", 6) // unchanged: not written again
	r.draw("abc", 80)
	r.draw("a", 80)
	r.end()
	if got, want := buf.String(), "\r0123456789\rxy   \rabc\ra  \n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// In a log, an export prints a line only when its figures change: a new
// status at once, new figures at most every lineEvery. The terminal's
// width is not asked.
func TestExportProgressLinesInLogs(t *testing.T) {
	width := 200
	fakeWidth(t, &width)
	var buf bytes.Buffer
	p := newExportProgress(&buf, false, false)
	step := fakeClock(&p.now)
	at := func(d time.Duration, st client.ExportState, pct, pages int) {
		step(d)
		p.update(&client.ExportJob{JobID: "exp_1", Domain: "docs.acme.test", Status: st, Progress: pct, PageCount: pages})
	}
	at(0, client.ExportQueued, 0, 0)
	at(5*time.Second, client.ExportQueued, 0, 0)              // no change
	at(100*time.Millisecond, client.ExportRunning, 10, 1)     // new status: at once
	at(100*time.Millisecond, client.ExportRunning, 20, 4)     // too soon
	at(2*time.Second, client.ExportRunning, 60, 12)           // new figures
	at(2*time.Second, client.ExportRunning, 60, 12)           // no change
	at(100*time.Millisecond, client.ExportCompleted, 100, 20) // new status: at once
	at(2*time.Second, client.ExportCompleted, 100, 20)        // no change
	p.finish()
	want := "Exporting docs.acme.test: queued\n" +
		"Exporting docs.acme.test: 10% (1 page)\n" +
		"Exporting docs.acme.test: 60% (12 pages)\n" +
		"Exporting docs.acme.test: 100% (20 pages)\n"
	if buf.String() != want {
		t.Fatalf("lines\n%s\nwant\n%s", buf.String(), want)
	}

	buf.Reset()
	p = newExportProgress(&buf, false, false)
	p.update(&client.ExportJob{Domain: "docs.acme.test", Status: client.ExportFailed, Progress: 45, PageCount: 9})
	if want := "Exporting docs.acme.test: failed at 45% (9 pages)\n"; buf.String() != want {
		t.Fatalf("failed: %q, want %q", buf.String(), want)
	}

	buf.Reset()
	quiet := newExportProgress(&buf, true, true)
	quiet.update(&client.ExportJob{Status: client.ExportRunning, Progress: 50})
	quiet.finish()
	if buf.Len() != 0 {
		t.Fatalf("quiet progress printed %q", buf.String())
	}
}

// A download's bar fits any terminal as an export's does, with its speed
// when there is room; below minBarWidth, plain lines at most every
// lineEvery.
func TestDownloadProgressFitsEveryWidth(t *testing.T) {
	width := 0
	fakeWidth(t, &width)
	for _, width = range []int{20, 39, 40, 60, 80, 200} {
		var buf bytes.Buffer
		p := newByteProgress(&buf, true, false)
		step := fakeClock(&p.now)
		for i := int64(0); i <= 8; i++ {
			p.update(i*1000_000, 8000_000)
			step(500 * time.Millisecond)
		}
		p.finish(true)
		out := buf.String()
		checkFits(t, out, width)
		if width < minBarWidth {
			want := "50%" // the bytes do not fit in 20 columns
			if width > 30 {
				want = "Downloading: 50% (4.0 MB of 8.0 MB)"
			}
			if strings.Contains(out, "\r") || !strings.Contains(out, want+"\n") || !strings.HasSuffix(out, "\nDownloaded 8.0 MB\n") ||
				strings.Count(out, "\n") != 4 {
				t.Errorf("width %d: want 3 lines a second apart and a last one: %q", width, out)
			}
			continue
		}
		if !strings.Contains(out, "\r") || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "100% (8.0 MB of 8.0 MB)"+
			map[bool]string{true: " 2.0 MB/s", false: ""}[width >= 60]+"\n") {
			t.Errorf("width %d: want a bar ending full: %q", width, out)
		}
		for _, m := range barRE.FindAllStringSubmatch(out, -1) {
			if n := len(m[1]); n < minBar {
				t.Errorf("width %d: a bar of %d columns: %q", width, n, m[0])
			}
		}
	}
}

// In a log, a download prints a line at most every logEvery, and one at
// the end.
func TestDownloadProgressLinesInLogs(t *testing.T) {
	var buf bytes.Buffer
	p := newByteProgress(&buf, false, false)
	step := fakeClock(&p.now)
	for i := int64(1); i <= 8; i++ {
		step(2 * time.Second)
		p.update(i*1000_000, 8000_000)
	}
	p.finish(true)
	want := "Downloading: 50% (4.0 MB of 8.0 MB)\n" +
		"Downloading: 87% (7.0 MB of 8.0 MB)\n" +
		"Downloaded 8.0 MB\n"
	if buf.String() != want {
		t.Fatalf("lines\n%s\nwant\n%s", buf.String(), want)
	}
}

// Labels give way in order: the verb, then the end of the name.
func TestFitLabel(t *testing.T) {
	for _, c := range []struct {
		room int
		want string
	}{{30, "Exporting docs.acme.test"}, {24, "Exporting docs.acme.test"}, {23, "docs.acme.test"}, {14, "docs.acme.test"},
		{13, "docs.acme..."}, {12, "docs.acme..."}, {8, "docs..."}, {7, ""}} {
		if got := fitLabel("Exporting", "docs.acme.test", c.room); got != c.want {
			t.Errorf("room %d: %q, want %q", c.room, got, c.want)
		}
	}
	if got := fitLabel("Downloading", "", 5); got != "" {
		t.Errorf("no name: %q", got)
	}
	if line, ok := barLine(minBarWidth, "Exporting", "docs.acme.test", 0.5, strings.Repeat("9", 30), ""); ok {
		t.Errorf("figures too wide for a bar gave %q", line)
	}
}

// A finished bar (lectern build's) is wiped, and the cursor left at the
// start of its line; clearing nothing writes nothing.
func TestBarClear(t *testing.T) {
	var buf bytes.Buffer
	r := redraw{w: &buf}
	r.clear()
	r.draw("Rendering [==>  ] 3/9 pages", 80)
	r.clear()
	r.clear()
	if got, want := buf.String(), "\rRendering [==>  ] 3/9 pages\r"+strings.Repeat(" ", 27)+"\r"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
