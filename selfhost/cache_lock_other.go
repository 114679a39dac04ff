//go:build !unix

package selfhost

import "os"

// lockFile does nothing where flock is missing: two processes sharing a
// cache folder are not detected there.
func lockFile(*os.File) error { return nil }
