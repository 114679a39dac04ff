package pgtest

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// env is a getenv of fixed variables.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// The database of the tests: TEST_DATABASE_URL when set (no probe), else
// the local server when it answers, else none with a reason that names the
// variable; in CI an unset variable is an error of its own (the test
// fails), and the local server is not looked for.
func TestResolve(t *testing.T) {
	const named = "postgres://u@db.test:5432/x?sslmode=disable"
	refused := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	for name, tc := range map[string]struct {
		vars     map[string]string
		probeErr error
		want     string
		probed   bool
		wantErr  string
		ci       bool
	}{
		"variable set":         {vars: map[string]string{EnvURL: named}, want: named},
		"variable set in CI":   {vars: map[string]string{EnvURL: named, "CI": "true"}, want: named},
		"local server answers": {vars: nil, want: LocalURL, probed: true},
		"no local server":      {vars: nil, probeErr: refused, probed: true, wantErr: "connection refused"},
		"CI without variable":  {vars: map[string]string{"CI": "true"}, wantErr: "CI runs the PostgreSQL tests", ci: true},
	} {
		t.Run(name, func(t *testing.T) {
			probed := false
			got, err := resolve(env(tc.vars), func() error { probed = true; return tc.probeErr })
			if probed != tc.probed {
				t.Errorf("probed the local server: %v, want %v", probed, tc.probed)
			}
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Errorf("resolve = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), EnvURL) {
				t.Errorf("resolve error = %v; want one naming %s and saying %q", err, EnvURL, tc.wantErr)
			}
			if errors.Is(err, errCI) != tc.ci {
				t.Errorf("error %v is the CI failure: %v, want %v", err, errors.Is(err, errCI), tc.ci)
			}
		})
	}
}

// A port where nothing listens is no server.
func TestProbeClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if err := probe(context.Background(), "postgres://postgres@"+addr+"/test?sslmode=disable"); err == nil {
		t.Error("probe of a closed port succeeded")
	}
}

// Something that accepts connections and never answers does not hold the
// tests up: the probe gives up on it by itself (within probeTimeout; the
// test's bound is only there to fail instead of hanging).
func TestProbeSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	done := make(chan error, 1)
	go func() {
		done <- probe(context.Background(), "postgres://postgres@"+ln.Addr().String()+"/test?sslmode=disable")
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("probe of a silent server succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("probe of a silent server did not give up")
	}
}

// On a real server, a database that does not exist is reported with the
// command that creates it.
func TestProbeMissingDatabase(t *testing.T) {
	u, err := url.Parse(BaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/lectern_no_such_database"
	err = probe(context.Background(), u.String())
	if err == nil || !strings.Contains(err.Error(), "createdb") || !strings.Contains(err.Error(), "lectern_no_such_database") {
		t.Errorf("probe of a missing database: %v; want the createdb command", err)
	}
	if err := probe(context.Background(), BaseURL(t)); err != nil {
		t.Errorf("probe of the tests' database: %v", err)
	}
}
