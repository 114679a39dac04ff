// Package proctest reads Linux's /proc for tests of what a process does
// to the processes it starts: which are running, and at what CPU priority
// their threads run. On a system without /proc it finds nothing.
package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stat returns the fields of the stat file at path after the command's
// name (so from the state, field 3 of proc(5), on); nil when it cannot be
// read.
func stat(path string) []string {
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

// Field numbers of proc(5)'s stat, less the 3 before the state.
const (
	fieldParent = 4 - 3
	fieldNice   = 19 - 3
)

// Children returns the processes whose parent is pid: their command
// lines (arguments joined by spaces), by process id.
func Children(pid int) map[int]string {
	kids := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		kid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := stat(filepath.Join("/proc", e.Name(), "stat")); len(f) > fieldParent && f[fieldParent] == strconv.Itoa(pid) {
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			kids[kid] = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return kids
}

// Nice returns the nice value of process pid (of its main thread); false
// when it cannot be read.
func Nice(pid int) (int, bool) {
	return nice(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
}

// ThreadNices returns the nice values of the threads of process pid.
func ThreadNices(pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "stat"))
	var out []int
	for _, t := range tasks {
		if n, ok := nice(t); ok {
			out = append(out, n)
		}
	}
	return out
}

// Alive reports whether process pid exists and has not ended: not gone,
// nor a zombie that waits for its parent to reap it.
func Alive(pid int) bool {
	f := stat(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return len(f) > 0 && f[0] != "Z"
}

func nice(path string) (int, bool) {
	f := stat(path)
	if len(f) <= fieldNice {
		return 0, false
	}
	n, err := strconv.Atoi(f[fieldNice])
	return n, err == nil
}
