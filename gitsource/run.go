package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// waitDelay bounds how long Wait waits for git's output pipes after git was
// killed (a grandchild could otherwise keep them open).
const waitDelay = 2 * time.Second

// Output limits: git's stdout here is a ref list or one commit message, and
// only the first lines of stderr are ever shown.
const (
	maxStdout = 4 << 20
	maxStderr = 64 << 10
)

// Environment variables that hand http(s) credentials to the credential
// helper. Only the git process and its children can read them.
const (
	envUser = "LECTERN_GIT_USERNAME"
	envPass = "LECTERN_GIT_PASSWORD"
)

// credHelper is a credential helper that answers "get" from the environment.
// It holds no secret itself, so it may go on the command line.
const credHelper = `!f() { test "$1" = get && printf 'username=%s\npassword=%s\n' "$` + envUser + `" "$` + envPass + `"; }; f`

// runner runs git for one Fetch.
type runner struct {
	git   string
	home  string // throwaway HOME
	src   *source
	extra []string // more environment (SSH's)
}

// run runs git with args in dir and returns its stdout and stderr. extraEnv
// is added to the isolated environment. The process group of git is killed
// when ctx is done.
func (r *runner) run(ctx context.Context, dir string, extraEnv []string, args ...string) (stdout []byte, stderr string, err error) {
	cmd := exec.CommandContext(ctx, r.git, append(r.configArgs(), args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(r.env(), r.extra...), extraEnv...)
	var out, errOut limitedBuffer
	out.max, errOut.max = maxStdout, maxStderr
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = waitDelay
	setProcessGroup(cmd)
	err = cmd.Run()
	if err != nil && !isExitError(err) && ctx.Err() == nil {
		// git could not be started at all.
		return nil, "", &lectern.Error{Code: lectern.EINTERNAL,
			Message: "cannot run git", Err: err}
	}
	return out.Bytes(), errOut.String(), err
}

// configArgs are the -c options given to every git invocation.
func (r *runner) configArgs() []string {
	fileAllow := "never"
	if r.src.local {
		fileAllow = "always"
	}
	args := []string{
		"-c", "credential.helper=", // forget any configured helper
		"-c", "credential.interactive=false",
		"-c", "core.askPass=",
		"-c", "core.hooksPath=" + os.DevNull,
		"-c", "core.fsmonitor=false",
		"-c", "init.templateDir=",
		"-c", "protocol.allow=never",
		"-c", "protocol.file.allow=" + fileAllow,
		"-c", "protocol.http.allow=always",
		"-c", "protocol.https.allow=always",
		"-c", "protocol.ssh.allow=" + map[bool]string{true: "always", false: "never"}[r.src.ssh],
		"-c", "log.showSignature=false",
	}
	if r.src.hasCreds {
		// Scoped to the repository's scheme and host, so a redirect to
		// another host never receives the credentials.
		args = append(args, "-c", "credential."+r.src.credURL+".helper="+credHelper)
	}
	return args
}

// passedEnv names the variables of the process environment git keeps:
// what it needs to run, reach a repository through a proxy and check its
// certificate. Nothing else reaches it: not the server's secrets
// (LECTERN_*, the object store's AWS_*, PGPASSWORD, cloud credentials),
// nor git's own variables (a stray GIT_DIR or GIT_CONFIG_* must not change
// what is fetched).
var passedEnv = []string{"PATH", "TMPDIR", "TZ",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_EXEC_PATH"}

// env returns the environment of git: the variables of passedEnv, plus
// settings that isolate git and forbid prompts.
func (r *runner) env() []string {
	var env []string
	for _, k := range passedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	askpass := "/bin/true"
	if _, err := os.Stat(askpass); err != nil {
		askpass = "true"
	}
	allow := "http:https"
	if r.src.local {
		allow = "file"
	} else if r.src.ssh {
		allow = "ssh"
	}
	env = append(env,
		"HOME="+r.home,
		"XDG_CONFIG_HOME="+filepath.Join(r.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS="+askpass,
		"SSH_ASKPASS="+askpass,
		"GCM_INTERACTIVE=never",
		"GIT_ALLOW_PROTOCOL="+allow,
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(r.home),
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_LFS_SKIP_SMUDGE=1",
		"LC_ALL=C",
	)
	if r.src.hasCreds {
		env = append(env, envUser+"="+r.src.username, envPass+"="+r.src.password)
	}
	return env
}

// limitedBuffer keeps the first max bytes written to it and drops the rest
// without failing the writer.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

func isExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// timeoutError is the cause of Fetch's own deadline.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string        { return "git fetch timed out after " + e.d.String() }
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// canceledError reports that ctx ended while git ran.
func canceledError(ctx context.Context, src *source, runErr error) error {
	cause := context.Cause(ctx)
	var te *timeoutError
	var msg string
	switch {
	case errors.As(cause, &te):
		msg = fmt.Sprintf("fetching %s timed out after %s; check that the repository is reachable and try again",
			src.display, te.d)
	case errors.Is(cause, context.DeadlineExceeded):
		msg = fmt.Sprintf("fetching %s timed out (the time allowed for the update ran out)", src.display)
	default:
		msg = fmt.Sprintf("fetching %s was canceled", src.display)
	}
	return &lectern.Error{Code: lectern.EUNAVAILABLE, Message: msg,
		RetryAfterSeconds: retryAfterSeconds, Err: errors.Join(cause, runErr)}
}

func branchNotFound(branch string, src *source, err error) error {
	return &lectern.Error{Code: lectern.ENOTFOUND,
		Message: fmt.Sprintf("branch %q does not exist in %s", branch, src.display), Err: err}
}

// Fragments of git's (LC_ALL=C) messages, lower-cased.
var (
	notFoundHints = []string{
		"not found", "does not exist", "does not appear to be a git repository",
		"not a git repository", "authentication failed", "could not read username",
		"could not read password", "terminal prompts disabled", "repository not exported",
		"permission denied", "dubious ownership", "returned error: 401",
		"returned error: 403", "returned error: 404", "returned error: 410",
	}
	unreachableHints = []string{
		"could not resolve", "couldn't resolve", "failed to connect", "couldn't connect",
		"connection refused", "connection reset", "connection timed out", "timed out",
		"network is unreachable", "no route to host", "empty reply from server",
		"recv failure", "send failure", "ssl", "tls", "certificate", "gnutls",
		"returned error: 5", "returned error: 429", "rpc failed", "early eof",
		"remote end hung up", "unexpected disconnect", "http/2 stream",
	}
)

func hasAny(s string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// remoteError classifies a failure to read the repository.
func remoteError(src *source, stderr string, err error) error {
	low := strings.ToLower(stderr)
	notFound := &lectern.Error{Code: lectern.ENOTFOUND,
		Message: "repository " + src.display + " not found or not readable" + detail(stderr, src), Err: err}
	switch {
	case hasAny(low, notFoundHints):
		return notFound
	case hasAny(low, unreachableHints), !src.local:
		return &lectern.Error{Code: lectern.EUNAVAILABLE,
			Message:           "could not reach repository " + src.display + detail(stderr, src),
			RetryAfterSeconds: retryAfterSeconds, Err: err}
	}
	return notFound
}

// cloneError classifies a failed clone (after ls-remote succeeded).
func cloneError(branch string, src *source, stderr string, err error) error {
	low := strings.ToLower(stderr)
	switch {
	case strings.Contains(low, "remote branch") && strings.Contains(low, "not found"):
		return branchNotFound(branch, src, err) // deleted since ls-remote
	case hasAny(low, unreachableHints):
		return &lectern.Error{Code: lectern.EUNAVAILABLE,
			Message:           fmt.Sprintf("could not fetch branch %q from %s%s", branch, src.display, detail(stderr, src)),
			RetryAfterSeconds: retryAfterSeconds, Err: err}
	case hasAny(low, notFoundHints) && !strings.Contains(low, "could not create"):
		return &lectern.Error{Code: lectern.ENOTFOUND,
			Message: "repository " + src.display + " not found or not readable" + detail(stderr, src), Err: err}
	}
	return &lectern.Error{Code: lectern.EINTERNAL,
		Message: fmt.Sprintf("fetching branch %q from %s failed%s", branch, src.display, detail(stderr, src)),
		Err:     err}
}

// detail formats git's stderr for a message: the fatal/error lines (or else
// the last lines), at most three, trimmed and redacted. It returns "" when
// git said nothing.
func detail(stderr string, src *source) string {
	var all, errs []string
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "Cloning into") {
			continue
		}
		// Replace control characters (git quotes most, not all).
		line = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, line)
		line = lectern.Truncate(redactText(line, src), 300)
		all = append(all, line)
		if strings.HasPrefix(line, "fatal:") || strings.HasPrefix(line, "error:") {
			errs = append(errs, line)
		}
	}
	lines := errs
	if len(lines) == 0 {
		lines = all
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return " (git: " + strings.Join(lines, "; ") + ")"
}

// runError is the error of a git invocation that could not be started or
// that ctx ended, or nil when git ran and failed on its own.
func runError(ctx context.Context, src *source, err error) error {
	if e := startError(err); e != nil {
		return e
	}
	if ctx.Err() != nil {
		return canceledError(ctx, src, err)
	}
	return nil
}

// startError returns the *lectern.Error of run when git could not be started.
func startError(err error) *lectern.Error {
	if isExitError(err) {
		return nil
	}
	return lectern.AsError(err)
}
