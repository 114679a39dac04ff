package buildproc_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/buildproc"
)

// statFields returns the fields of a /proc stat file after the command's
// name (from the state, field 3, on); nil when it cannot be read.
func statFields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// niceOf returns the nice values of the threads of process pid.
func niceOf(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
	var out []int
	for _, f := range tasks {
		if fields := statFields(f); len(fields) > 16 {
			n, _ := strconv.Atoi(fields[16]) // field 19, nice
			out = append(out, n)
		}
	}
	return out
}

// children returns the processes whose parent is this one.
func children() []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		if fields := statFields(f); len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, pid)
		}
	}
	return out
}

// TestChildNice: a render asked for Nice 6 runs with every thread six
// nice values above this process's; one asked for none, at its own.
func TestChildNice(t *testing.T) {
	own := niceOf(os.Getpid())[0]
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
			for _, pid := range children() {
				if ns := niceOf(pid); len(ns) > 1 {
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
