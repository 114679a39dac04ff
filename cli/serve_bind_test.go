package cli_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	lecternpkg "lectern.dev/lectern"
	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/store/sqlite"
)

// TestServeBusyPort runs serve on a port another listener holds, as
// --addr and as --metrics-addr: it fails at once with an error that names
// the address, the setting and (on Linux) the process holding the port,
// having started nothing: no job worker, and a queued update stays queued.
func TestServeBusyPort(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	lectern(t, "admin", "--data-dir", data, "org", "list")
	st, err := sqlite.Open(t.Context(), filepath.Join(data, "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	o := &lecternpkg.Organization{Name: "Acme", Plan: lecternpkg.PlanEnterprise}
	if err := st.CreateOrg(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	repo, _ := newRepo(t, smallSite("Never built."))
	p := &lecternpkg.Project{OrgID: o.ID, Name: "Docs", RepoURL: repo, Branch: "main", DocsRoot: "/",
		Domains: []string{"docs.acme.test"}, DeploymentType: lecternpkg.DeploymentCloud}
	if err := st.CreateProject(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	u := &lecternpkg.Update{ProjectID: p.ID, OrgID: o.ID, Status: lecternpkg.UpdateQueued, Source: "api"}
	if err := st.CreateUpdate(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	st.Close()

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	free := freeAddr(t)
	for _, c := range []struct {
		args    []string
		setting string
	}{
		{[]string{"--addr", busy.Addr().String()}, "--addr (LECTERN_ADDR)"},
		{[]string{"--addr", free, "--metrics-addr", busy.Addr().String()}, "--metrics-addr (LECTERN_METRICS_ADDR)"},
	} {
		logs := &syncBuffer{}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		start := time.Now()
		err := cli.Run(ctx, append([]string{"serve", "--data-dir", data}, c.args...), noEnv, strings.NewReader(""), io.Discard, logs)
		cancel()
		if err == nil {
			t.Fatalf("serve %v on a busy port returned no error", c.args)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("serve %v took %s to fail", c.args, took)
		}
		msg := err.Error()
		for _, want := range []string{busy.Addr().String(), "already in use", c.setting, "another address"} {
			if !strings.Contains(msg, want) {
				t.Errorf("serve %v: error %q does not say %q", c.args, msg, want)
			}
		}
		// The port is held by this test process, whose file descriptors it
		// may read.
		if runtime.GOOS == "linux" && !strings.Contains(msg, fmt.Sprintf("by process %d (", os.Getpid())) {
			t.Errorf("serve %v: error %q does not name the process holding the port (%d)", c.args, msg, os.Getpid())
		}
		for _, started := range []string{"job workers started", "lectern listening", "metrics listening"} {
			if strings.Contains(logs.String(), started) {
				t.Errorf("serve %v failed to bind but logged %q:\n%s", c.args, started, logs.String())
			}
		}
	}
	// The listener bound before the busy one was closed again.
	if ln, err := net.Listen("tcp", free); err != nil {
		t.Errorf("--addr %s is still held after serve failed: %v", free, err)
	} else {
		ln.Close()
	}
	st, err = sqlite.Open(t.Context(), filepath.Join(data, "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.GetUpdate(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != lecternpkg.UpdateQueued || got.StartedAt != nil {
		t.Errorf("the queued update was taken up by a serve that could not bind: %s, started %v", got.Status, got.StartedAt)
	}
}

// TestServeListenErrors: an address serve cannot listen on for another
// reason is named with its setting, and says what to do.
func TestServeListenErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ addr, want string }{
		{"192.0.2.1:8080", "no network interface of this machine has that address"}, // TEST-NET-1
		{"127.0.0.1:99999", "--addr: listen on 127.0.0.1:99999"},
	} {
		if host, _, _ := net.SplitHostPort(c.addr); host != "127.0.0.1" {
			if ln, err := net.Listen("tcp", net.JoinHostPort(host, "0")); err == nil {
				ln.Close() // this machine binds addresses it does not have (ip_nonlocal_bind)
				continue
			}
		}
		// A serve that did listen would run until ctx ends, then return nil.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		err := cli.Run(ctx, []string{"serve", "--data-dir", t.TempDir(), "--addr", c.addr}, noEnv, strings.NewReader(""), io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.addr) {
			t.Errorf("serve --addr %s: %v, want an error saying %q", c.addr, err, c.want)
		}
	}
}
