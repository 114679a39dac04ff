//go:build !linux

package buildproc

import (
	"os/exec"
	"runtime/debug"
)

// isolate keeps exec's defaults: only the child itself is killed when the
// build is cancelled, and it is not killed when the server dies.
func isolate(cmd *exec.Cmd) {}

// limitMemory sets the garbage collector's soft limit only: other
// systems have no limit on a process's heap that Go's runtime honours.
func limitMemory(bytes int64) error {
	if bytes > 0 {
		debug.SetMemoryLimit(bytes)
	}
	return nil
}
