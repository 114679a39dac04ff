package client_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/client"
)

// The client's tests run against a real lectern serve, started in-process
// once for the package by startServer.

var (
	serverOnce sync.Once
	server     *fixture
	serverErr  string
	stopServer func()
)

// fixture is the running server and the repositories its projects
// build.
type fixture struct {
	url  string
	data string
	// good builds a two-page site at commit sha; broken has a docs.json
	// that does not parse.
	good, broken, sha string
}

// tenant is an organization of its own for one test, so that tests do
// not share export quotas or supersede each other's updates.
type tenant struct {
	key     string
	project string
	domains []string
}

var tenantSeq atomic.Int64

// tenant creates an organization on plan with an API key and a project
// building repo, serving one domain per name (made unique); with live,
// the project is deployed first.
func (f *fixture) tenant(t *testing.T, plan, repo string, live bool, names ...string) *tenant {
	t.Helper()
	n := tenantSeq.Add(1)
	admin := func(args ...string) string {
		t.Helper()
		out, err := run(append([]string{"admin", "--data-dir", f.data}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return lastLine(out)
	}
	org := admin("org", "create", "--name", fmt.Sprintf("Org %d", n), "--plan", plan)
	tn := &tenant{key: admin("key", "create", "--org", org, "--name", "ci")}
	args := []string{"project", "create", "--org", org, "--name", "Docs", "--repo", repo}
	for _, name := range names {
		d := fmt.Sprintf("%s-%d.acme.test", name, n)
		tn.domains = append(tn.domains, d)
		args = append(args, "--domain", d)
	}
	tn.project = admin(args...)
	if live {
		// Deployed with plain HTTP, not with the client under test.
		if err := deploy(f.url, tn.key, tn.project); err != nil {
			t.Fatal(err)
		}
	}
	return tn
}

// TestMain runs the tests; run with the arguments "internal-build", this
// binary is the child process in which the in-process server renders.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "internal-build" {
		os.Exit(cli.Report(os.Stderr, cli.Run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)))
	}
	code := m.Run()
	if stopServer != nil {
		stopServer()
	}
	os.Exit(code)
}

// startServer returns the package's server, starting it on first use.
func startServer(t *testing.T) *fixture {
	t.Helper()
	serverOnce.Do(func() {
		f, err := newFixture()
		if err != nil {
			serverErr = err.Error()
			return
		}
		server = f
	})
	if server == nil {
		t.Fatalf("starting lectern serve: %s", serverErr)
	}
	return server
}

type fixtureError string

func (e fixtureError) Error() string { return string(e) }

// run runs a lectern command in-process and returns its standard output.
func run(args ...string) (string, error) {
	var out, errb bytes.Buffer
	if err := cli.Run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb); err != nil {
		return "", fixtureError("lectern " + strings.Join(args, " ") + ": " + err.Error() + "\n" + errb.String())
	}
	return out.String(), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func newFixture() (f *fixture, err error) {
	dir, err := os.MkdirTemp("", "lectern-client-test-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	data := filepath.Join(dir, "data")
	// Exports are slowed down per page so that a test sees one running.
	args := []string{"serve", "--addr", addr, "--data-dir", data, "--rate-limit", "1000",
		"--exports-per-hour", "3", "--render-page-delay", "150ms"}
	go func() {
		done <- cli.Run(ctx, args, func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	}()
	stopServer = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
		os.RemoveAll(dir)
	}
	f = &fixture{url: "http://" + addr, data: data}
	if err := waitHealthy(f.url, done); err != nil {
		return nil, err
	}
	good, sha, err := gitRepo(filepath.Join(dir, "good"), map[string]string{
		"docs.json":      `{"name": "Acme Docs", "navigation": {"groups": [{"group": "Start", "pages": ["index", "quickstart"]}]}}`,
		"index.mdx":      "---\ntitle: Welcome\n---\n\nRead the **quickstart** first.\n",
		"quickstart.mdx": "---\ntitle: Quickstart\n---\n\nInstall the **acme** CLI.\n",
	})
	if err != nil {
		return nil, err
	}
	broken, _, err := gitRepo(filepath.Join(dir, "broken"), map[string]string{"docs.json": `{"name": "Acme", "navigation": [`})
	if err != nil {
		return nil, err
	}
	f.good, f.broken, f.sha = good, broken, sha
	return f, nil
}

// deploy triggers an update of a project and waits for its success.
func deploy(base, key, project string) error {
	c, err := client.New(base, key, client.WithPollInterval(50*time.Millisecond))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	acc, err := c.TriggerUpdate(ctx, project)
	if err != nil {
		return err
	}
	st, err := c.WaitUpdate(ctx, acc.StatusID, nil)
	if err != nil {
		return fixtureError("deploying " + project + ": " + err.Error())
	}
	if st.Status != client.UpdateSuccess {
		return fixtureError("deploying " + project + ": " + string(st.Status) + ": " + st.Summary)
	}
	return nil
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error() + " "
}

func waitHealthy(base string, done <-chan error) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			return fixtureError("serve exited early: " + fmtErr(err))
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fixtureError("serve not healthy after 20s")
}

// gitRepo creates a repository with files committed on main and returns
// its path and commit.
func gitRepo(dir string, files map[string]string) (string, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return "", "", err
		}
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Docs Team", "GIT_AUTHOR_EMAIL=docs@acme.test",
			"GIT_COMMITTER_NAME=Docs Team", "GIT_COMMITTER_EMAIL=docs@acme.test", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fixtureError("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + string(out))
		}
		return strings.TrimSpace(string(out)), nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "Initial docs"}} {
		if _, err := git(args...); err != nil {
			return "", "", err
		}
	}
	sha, err := git("rev-parse", "HEAD")
	return dir, sha, err
}
