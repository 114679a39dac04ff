package buildproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
)

// DefaultMemory is the memory a child render may use unless
// Child.Memory says otherwise.
const DefaultMemory int64 = 2 << 30

// Child renders each request in a child process: Exe run with Args (for
// the lectern binary, "internal-build"), which must call Serve. The
// request goes to its standard input, progress and the result come back
// on its standard output, one JSON message a line.
type Child struct {
	Exe  string
	Args []string
	// Timeout bounds a render's wall time; 0 means none.
	Timeout time.Duration
	// Memory bounds the child's heap; 0 means DefaultMemory.
	Memory int64
}

var _ Builder = (*Child)(nil)

// wireRequest is a Request as it crosses to the child: its render.Options
// but those that stay in the server (wireLeftOut).
type wireRequest struct {
	Request
	BasePath string         `json:"basePath,omitempty"`
	Export   bool           `json:"export,omitempty"`
	SiteURL  string         `json:"siteUrl,omitempty"`
	Features *features.Site `json:"features,omitempty"`
	Limits   limits.Limits  `json:"limits"`
	// CustomScripts: render.Options.CustomScripts.
	CustomScripts bool `json:"customScripts,omitempty"`
}

// wireLeftOut are the render.Options that do not cross to the child: its
// progress goes back as messages, its cache is Request.CacheDir, it reads
// nothing remote, and Exclude is lectern build's own.
var wireLeftOut = []string{"Progress", "CacheDir", "AllowRemote", "Exclude"}

func newWireRequest(req Request) wireRequest {
	o := req.Options
	return wireRequest{Request: req, BasePath: o.BasePath, Export: o.Export, SiteURL: o.SiteURL, Features: o.Features,
		Limits: o.Limits, CustomScripts: o.CustomScripts}
}

func (w *wireRequest) options() render.Options {
	return render.Options{BasePath: w.BasePath, Export: w.Export, SiteURL: w.SiteURL, Features: w.Features, Limits: w.Limits,
		CustomScripts: w.CustomScripts}
}

// message is one line of the child's output.
type message struct {
	Progress *[2]int   `json:"progress,omitempty"`
	Result   *Result   `json:"result,omitempty"`
	Error    *wireErr  `json:"error,omitempty"`
	Limit    *limitMsg `json:"limit,omitempty"`
}

type wireErr struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type limitMsg struct{ Limit, File, Detail, Max string }

// Build runs req in a new child process and waits for it.
func (c *Child) Build(ctx context.Context, req Request, progress func(done, total int)) (*Result, error) {
	memory := c.Memory
	if memory <= 0 {
		memory = DefaultMemory
	}
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.Timeout > 0 {
		bctx, cancel = context.WithTimeout(bctx, c.Timeout)
		defer cancel()
	}
	args := append(append([]string(nil), c.Args...), "--memory", fmt.Sprint(memory))
	cmd := exec.CommandContext(bctx, c.Exe, args...)
	cmd.Env = childEnv()
	isolate(cmd)
	cmd.WaitDelay = 5 * time.Second
	in, err := json.Marshal(newWireRequest(req))
	if err != nil {
		return nil, err
	}
	cmd.Stdin = bytes.NewReader(in)
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the build process %s: %w", c.Exe, err)
	}
	var last message
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Progress != nil {
			if progress != nil {
				progress(m.Progress[0], m.Progress[1])
			}
			continue
		}
		last = m
	}
	scanErr := sc.Err() // a line longer than the buffer: the result is lost
	io.Copy(io.Discard, out)
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case scanErr != nil:
		return nil, fmt.Errorf("read the build process's result: %w", scanErr)
	case errors.Is(bctx.Err(), context.DeadlineExceeded):
		return nil, timeoutError(c.Timeout)
	case last.Result != nil && waitErr == nil:
		return last.Result, nil
	case last.Limit != nil:
		le := &limits.Error{Limit: last.Limit.Limit, File: last.Limit.File, Detail: last.Limit.Detail, Max: last.Limit.Max}
		return nil, &lectern.Error{Code: lectern.EINVALID, Message: le.Error(), Err: le}
	case last.Error != nil:
		return nil, &lectern.Error{Code: last.Error.Code, Message: last.Error.Message}
	case outOfMemory(stderr.String()):
		return nil, memoryError(memory)
	}
	return nil, fmt.Errorf("the build process ended without a result (%v): %s", waitErr, firstLines(stderr.String(), 3))
}

// outOfMemory reports whether a child's error output is the Go
// runtime's report of an allocation that its memory limit refused.
func outOfMemory(stderr string) bool {
	return strings.Contains(stderr, "fatal error: out of memory") ||
		strings.Contains(stderr, "runtime: out of memory") ||
		strings.Contains(stderr, "cannot allocate memory") ||
		strings.Contains(stderr, "pthread_create failed") // a thread's stack, refused by the same limit
}

// childGCPercent is the child's garbage collector target unless GOGC is
// set, and progressEvery how often it reports progress at most.
const (
	childGCPercent = 200
	progressEvery  = 50 * time.Millisecond
)

// Serve is the child's side of Child.Build: it caps the process's
// memory at memory bytes, reads one request from r, renders it, and
// writes progress and the result to w.
func Serve(ctx context.Context, memory int64, r io.Reader, w io.Writer) error {
	if err := limitMemory(memory); err != nil {
		return fmt.Errorf("limit the build's memory: %w", err)
	}
	var req wireRequest
	if err := json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(&req); err != nil {
		return fmt.Errorf("read the build request: %w", err)
	}
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	send := func(m message) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(m)
	}
	req.Request.Options = req.options()
	if req.Nice > 0 {
		// Best effort: a render at the server's priority is still a
		// render.
		_ = lowerPriority(min(req.Nice, 19))
	}
	if os.Getenv("GOGC") == "" {
		// As lectern build: a render allocates far more than it keeps.
		debug.SetGCPercent(childGCPercent)
	}
	// Progress crosses the pipe at most every progressEvery, and at the
	// start and the end: a message per page would cost a write per page.
	var last time.Time
	res, err := build(ctx, req.Request, func(done, total int) {
		if done == 0 || done == total || time.Since(last) >= progressEvery {
			last = time.Now()
			send(message{Progress: &[2]int{done, total}})
		}
	})
	switch {
	case err == nil:
		send(message{Result: res})
	case limits.AsError(err) != nil:
		le := limits.AsError(err)
		send(message{Limit: &limitMsg{Limit: le.Limit, File: le.File, Detail: le.Detail, Max: le.Max}})
	case lectern.ErrorCode(err) != lectern.EINTERNAL:
		send(message{Error: &wireErr{Code: lectern.ErrorCode(err), Message: lectern.ErrorMessage(err)}})
	default:
		return err
	}
	return nil
}

// childEnv is the environment of a child render: enough to run, none of
// the server's settings.
func childEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// tailBuffer keeps the first and the last max bytes written to it: the
// Go runtime's fatal error comes first, then a dump of every goroutine.
type tailBuffer struct {
	mu         sync.Mutex
	max        int
	head, tail []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > t.max {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-t.max:]...)
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + string(t.tail)
}

// firstLines returns the first n non-empty lines of s, joined by " | ".
func firstLines(s string, n int) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
	return strings.Join(lines[:min(n, len(lines))], " | ")
}
