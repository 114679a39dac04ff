//go:build linux

package buildproc

import (
	"errors"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
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

// lowerPriority raises the nice value of every thread of the process by
// n (at most to 19) from the process's: Linux keeps one for each thread,
// and a thread starts with its creator's, so the threads the runtime
// starts later inherit it. Twice over, for a thread started during the
// first pass.
func lowerPriority(n int) error {
	// The system call gives 20 - nice.
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, os.Getpid())
	if err != nil {
		return err
	}
	nice := min(20-raw+n, 19)
	for range 2 {
		tasks, rerr := os.ReadDir("/proc/self/task")
		if rerr != nil {
			return rerr
		}
		for _, t := range tasks {
			tid, aerr := strconv.Atoi(t.Name())
			if aerr != nil {
				continue
			}
			if serr := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); serr != nil && !errors.Is(serr, syscall.ESRCH) && err == nil {
				err = serr // (ESRCH: a thread that ended)
			}
		}
	}
	return err
}
