package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/client"
)

// On a terminal, an export shows a bar with its percentage and pages.
func TestExportProgressBarOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newExportProgress(&buf, true, false)
	p.update(&client.ExportJob{JobID: "exp_1", Domain: "docs.acme.test", Status: client.ExportRunning, Progress: 40, PageCount: 8})
	out := buf.String()
	if !strings.Contains(out, "40%") || !strings.Contains(out, "8 pages") || !strings.Contains(out, "docs.acme.test") {
		t.Fatalf("bar at 40%%: %q", out)
	}
	p.update(&client.ExportJob{JobID: "exp_1", Domain: "docs.acme.test", Status: client.ExportCompleted, Progress: 100, PageCount: 20})
	p.finish()
	if out := buf.String(); !strings.Contains(out, "100%") || !strings.Contains(out, "20 pages") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("finished bar: %q", out)
	}
}

// In a log, an export prints a line per change of state, and progress at
// most every plainEvery.
func TestExportProgressLinesInLogs(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p := newExportProgress(&buf, false, false)
	p.now = func() time.Time { return now }
	step := func(d time.Duration, st client.ExportState, pct, pages int) {
		now = now.Add(d)
		p.update(&client.ExportJob{JobID: "exp_1", Status: st, Progress: pct, PageCount: pages})
	}
	step(0, client.ExportQueued, 0, 0)
	step(time.Second, client.ExportQueued, 0, 0)
	step(time.Second, client.ExportRunning, 10, 2)
	step(time.Second, client.ExportRunning, 20, 4) // too soon
	step(5*time.Second, client.ExportRunning, 60, 12)
	step(time.Second, client.ExportCompleted, 100, 20)
	want := "export exp_1: queued, 0%, 0 pages\n" +
		"export exp_1: running, 10%, 2 pages\n" +
		"export exp_1: running, 60%, 12 pages\n" +
		"export exp_1: completed, 100%, 20 pages\n"
	if buf.String() != want {
		t.Fatalf("lines\n%s\nwant\n%s", buf.String(), want)
	}
	quiet := newExportProgress(&buf, false, true)
	quiet.update(&client.ExportJob{Status: client.ExportFailed})
	if buf.String() != want {
		t.Fatal("quiet progress printed")
	}
}

func TestDownloadProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newByteProgress(&buf, true, false)
	p.throttle = 0
	p.update(1<<20, 4<<20)
	if out := buf.String(); !regexp.MustCompile(`25% .*1\.0 MB/4\.2 MB|25% .*1\.0/4\.2 MB`).MatchString(out) {
		t.Fatalf("bar: %q", out)
	}

	buf.Reset()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p = newByteProgress(&buf, false, false)
	p.now = func() time.Time { return now }
	for i := int64(1); i <= 8; i++ {
		now = now.Add(2 * time.Second)
		p.update(i*1000_000, 8000_000)
	}
	p.finish(true)
	want := "downloading: 4.0 MB of 8.0 MB (50%)\n" +
		"downloading: 7.0 MB of 8.0 MB (87%)\n" +
		"downloaded 8.0 MB\n"
	if buf.String() != want {
		t.Fatalf("lines\n%s\nwant\n%s", buf.String(), want)
	}
}
