//go:build unix

package gitsource

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts git in its own process group and makes ctx
// cancellation kill the whole group, so helpers git started
// (git-remote-https, upload-pack, index-pack) die with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
