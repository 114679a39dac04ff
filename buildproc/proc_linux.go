//go:build linux

package buildproc

import (
	"os/exec"
	"runtime/debug"
	"syscall"
)

// isolate starts the child in its own process group, killed whole when
// the build is cancelled, and makes the kernel kill it when the server
// dies (even by kill -9), so that no render outlives its supervisor.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}

// limitMemory caps the process's data segment (RLIMIT_DATA, which since
// Linux 4.7 counts the private memory the Go heap maps), so that an
// allocation past it fails and the runtime exits with "out of memory";
// the garbage collector works harder from 90% of it on.
func limitMemory(bytes int64) error {
	if bytes <= 0 {
		return nil
	}
	debug.SetMemoryLimit(bytes / 10 * 9)
	lim := uint64(bytes)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim})
}
