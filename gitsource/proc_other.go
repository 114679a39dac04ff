//go:build !unix

package gitsource

import "os/exec"

// setProcessGroup keeps exec's default on systems without process groups:
// only git itself is killed when ctx is done.
func setProcessGroup(cmd *exec.Cmd) {}
