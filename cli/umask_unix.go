//go:build unix

package cli

import "syscall"

// privateUmask makes files and folders the process creates from now on
// its owner's alone (0600 and 0700).
func privateUmask() { syscall.Umask(0o077) }
