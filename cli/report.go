package cli

import (
	"errors"
	"fmt"
	"io"
)

// reportedError is an error a command has already written out (as JSON,
// with --json): Report does not print it again.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

// Report writes an error returned by Run for a person, as one line
// "lectern: ..." on stderr, unless the command has already written it
// (as JSON, with --json), and returns the exit code the process should end
// with: 0 for nil, else ExitCode(err).
func Report(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var r *reportedError
	if !errors.As(err, &r) {
		fmt.Fprintln(stderr, "lectern:", err)
	}
	return ExitCode(err)
}
