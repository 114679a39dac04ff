// Package limits holds the budgets of one build (Limits: file, source,
// page and output sizes, file and page counts, expansions, YAML values),
// the error that ends a build that exceeds one (Error, naming the limit and
// the file), and the helpers that enforce them while reading (ReadFile).
//
// It knows nothing of what is built: callers count, and ask Over.
package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"lectern.dev/lectern"
)

// Limits bound what one build may read, expand and write, so that a
// source (an organization's repository, on a shared server) cannot make
// the build exhaust memory, disk or time. A zero field takes its default;
// a negative one means no limit. Exceeding a limit ends the build with a
// *Error naming the limit and the file.
type Limits struct {
	// MaxFileBytes bounds any one file of the source (default 100 MiB).
	// Larger files are refused before they are read.
	MaxFileBytes int64
	// MaxSourceBytes bounds the files of the source together (default
	// 2 GiB), and MaxFiles their number (default 100,000).
	MaxSourceBytes int64
	MaxFiles       int
	// MaxPages bounds the pages of the navigation (default 25,000).
	MaxPages int
	// MaxOutputBytes bounds everything the build writes (default 4 GiB),
	// and MaxPageBytes one rendered page (default 16 MiB).
	MaxOutputBytes int64
	MaxPageBytes   int
	// MaxExpansions bounds the snippets and exported components rendered
	// for one page, counting every use at every depth (default 10,000):
	// snippets that each use the next one ten times grow exponentially.
	MaxExpansions int
	// MaxYAMLValues bounds the values an OpenAPI YAML document and the
	// YAML files its $refs name expand to together, each use of an alias
	// counting the whole value it repeats (default 2,000,000).
	MaxYAMLValues int
}

// Limit names, as Error.Limit gives them. The server's settings are
// these names with the prefix --build- (docs/operations.md).
const (
	MaxFileSize   = "max-file-size"
	MaxSourceSize = "max-source-size"
	MaxFiles      = "max-files"
	MaxPages      = "max-pages"
	MaxOutputSize = "max-output-size"
	MaxPageSize   = "max-page-size"
	MaxExpansions = "max-expansions"
	MaxYAMLValues = "max-yaml-values"
)

// Default returns the limits a zero Limits stands for.
func Default() Limits {
	return Limits{
		MaxFileBytes:   100 << 20,
		MaxSourceBytes: 2 << 30,
		MaxFiles:       100_000,
		MaxPages:       25_000,
		MaxOutputBytes: 4 << 30,
		MaxPageBytes:   16 << 20,
		MaxExpansions:  10_000,
		MaxYAMLValues:  2_000_000,
	}
}

// WithDefaults returns l with each zero field set to its default.
func (l Limits) WithDefaults() Limits {
	d := Default()
	pick64 := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	pick := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	return Limits{
		MaxFileBytes:   pick64(l.MaxFileBytes, d.MaxFileBytes),
		MaxSourceBytes: pick64(l.MaxSourceBytes, d.MaxSourceBytes),
		MaxFiles:       pick(l.MaxFiles, d.MaxFiles),
		MaxPages:       pick(l.MaxPages, d.MaxPages),
		MaxOutputBytes: pick64(l.MaxOutputBytes, d.MaxOutputBytes),
		MaxPageBytes:   pick(l.MaxPageBytes, d.MaxPageBytes),
		MaxExpansions:  pick(l.MaxExpansions, d.MaxExpansions),
		MaxYAMLValues:  pick(l.MaxYAMLValues, d.MaxYAMLValues),
	}
}

// Over reports whether n exceeds the limit max: never when max is not
// positive (no limit; zeros are replaced by defaults in Build).
func Over[T int | int64](n, max T) bool { return max > 0 && n > max }

// Error says that a build exceeded one of its Limits. It is the Err
// of the *lectern.Error (code EINVALID) that Build returns, so that a
// server fails the update at once, without retrying it.
type Error struct {
	Limit  string // one of the Limit* names
	File   string // the file that exceeded it; "" when none is to blame
	Detail string // what was found, e.g. "the file is 2.0 GiB"
	Max    string // the limit, e.g. "100 MiB"
}

func (e *Error) Error() string {
	msg := e.Detail + ", over the build limit " + e.Limit + " (" + e.Max + ")."
	if e.File != "" {
		msg = e.File + ": " + msg
	}
	return msg
}

// Errorf returns the EINVALID error Build returns for a Error.
func Errorf(limit, file, max, format string, args ...any) error {
	le := &Error{Limit: limit, File: file, Max: max, Detail: fmt.Sprintf(format, args...)}
	return &lectern.Error{Code: lectern.EINVALID, Message: le.Error(), Err: le}
}

// AsError returns the Error in err's chain, or nil.
func AsError(err error) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// State holds the first limit a build's page renderers exceeded;
// shared by the copies of a site (pageSite), safe for concurrent use.
type State struct {
	mu  sync.Mutex
	err error
}

func (l *State) Set(err error) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

func (l *State) Err() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// ReadFile reads name from fsys, refusing a file larger than max
// (none when max < 0) with a limit error, and reading no more than max
// bytes of a file that grows while it is read.
func ReadFile(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder", name)
	}
	if Over(fi.Size(), max) {
		return nil, fileTooLarge(name, fi.Size(), max)
	}
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1) // a file that grows while it is read
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	if Over(int64(buf.Len()), max) {
		return nil, fileTooLarge(name, int64(buf.Len()), max)
	}
	return buf.Bytes(), nil
}

func fileTooLarge(name string, size, max int64) error {
	return Errorf(MaxFileSize, name, FormatSize(max), "the file is %s", FormatSize(size))
}

// FormatSize formats a size in bytes for people: "512 B", "1.5 MiB",
// "2 GiB" (whole units without a decimal).
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	if n%div == 0 {
		return fmt.Sprintf("%d %ciB", n/div, "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// ReadError wraps an error reading file of the source; limit errors are
// returned as they are, since they already name the file.
func ReadError(file string, err error) error {
	if AsError(err) != nil {
		return err
	}
	return fmt.Errorf("render: read %s: %w", file, err)
}
