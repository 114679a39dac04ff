// Command renderwatch measures one-page rebuilds of lectern build --watch,
// for bench/render.sh:
//
//	renderwatch -lectern BIN -out DIR SOURCE PAGE...
//
// It starts BIN build --watch --out DIR SOURCE, waits for the first build
// and, for each PAGE (a path in SOURCE), appends a sentence to it and
// takes the time from the write to the command's "Rebuilt" line, then
// checks that the page's output has the sentence. It prints one line:
// the rebuild times in seconds, to the millisecond, and the command's
// peak RSS in MB (VmHWM, which includes the first, full build).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("lectern", "lectern", "the lectern binary")
	out := flag.String("out", "", "output folder")
	flag.Parse()
	if *out == "" || flag.NArg() < 2 {
		log.Fatal("usage: renderwatch -lectern BIN -out DIR SOURCE PAGE...")
	}
	src, pages := flag.Arg(0), flag.Args()[1:]
	cmd := exec.Command(*bin, "build", "--watch", "--out", *out, src)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	// until reads lines until one starts with prefix.
	until := func(prefix string) {
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), prefix) {
				return
			}
		}
		cmd.Process.Kill()
		log.Fatalf("lectern build --watch ended before %q: %v", prefix, lines.Err())
	}
	until("Watching")
	var times []string
	for i, page := range pages {
		time.Sleep(200 * time.Millisecond) // no change pending
		sentence := fmt.Sprintf("One more sentence, changed for watched rebuild %d.", i+1)
		f, err := os.OpenFile(filepath.Join(src, page), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			log.Fatal(err)
		}
		start := time.Now()
		if _, err := io.WriteString(f, "\n"+sentence+"\n"); err != nil {
			log.Fatal(err)
		}
		f.Close()
		until("Rebuilt")
		times = append(times, fmt.Sprintf("%.3f", time.Since(start).Seconds()))
		html, err := os.ReadFile(filepath.Join(*out, strings.TrimSuffix(page, filepath.Ext(page))+".html"))
		if err != nil || !strings.Contains(string(html), sentence) {
			cmd.Process.Kill()
			log.Fatalf("rebuild did not update %s (%v)", page, err)
		}
	}
	rss := "-"
	if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			var kb int
			if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
				rss = fmt.Sprint(kb / 1024)
			}
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		log.Fatalf("lectern build --watch: %v", err)
	}
	fmt.Println(strings.Join(times, " "), rss)
}
