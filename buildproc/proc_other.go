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

// lowerPriority does nothing: other systems' nice values are not kept by
// thread, and a render runs at the server's priority there.
func lowerPriority(n int) error { return nil }
