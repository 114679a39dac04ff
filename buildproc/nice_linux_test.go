package buildproc_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lectern.dev/lectern/buildproc"
	"lectern.dev/lectern/internal/proctest"
)

// TestChildNice: a render asked for Nice 6 runs with every thread six
// nice values above this process's; one asked for none, at its own.
func TestChildNice(t *testing.T) {
	own, ok := proctest.Nice(os.Getpid())
	if !ok {
		t.Fatal("this process's nice value was not read")
	}
	for _, nice := range []int{6, 0} {
		src, out := site(t, pages(6)), filepath.Join(t.TempDir(), "out")
		done := make(chan error, 1)
		go func() {
			_, err := child(t, 0, time.Minute).Build(context.Background(), buildproc.Request{Src: src, Out: out,
				PageDelay: 150 * time.Millisecond, Nice: nice}, nil)
			done <- err
		}()
		// Until every thread has it: the render lowers its priority
		// once it has read its request.
		want := min(own+nice, 19)
		var seen []int
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) && (len(seen) == 0 || slices.ContainsFunc(seen, func(n int) bool { return n != want })) {
			time.Sleep(20 * time.Millisecond)
			for pid := range proctest.Children(os.Getpid()) {
				if ns := proctest.ThreadNices(pid); len(ns) > 1 {
					seen = ns
				}
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(seen) == 0 {
			t.Fatalf("Nice %d: the render's process was not seen", nice)
		}
		if slices.ContainsFunc(seen, func(n int) bool { return n != want }) {
			t.Errorf("Nice %d: the render's threads run at nice %v, want all %d", nice, seen, want)
		}
	}
}
