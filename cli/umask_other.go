//go:build !unix

package cli

// privateUmask does nothing where there is no file creation mask.
func privateUmask() {}
