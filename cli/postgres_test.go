package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// version is how migrate reports the schema version.
var version = regexp.MustCompile(`schema version [1-9][0-9]*\n$`)

// TestMigrateCommand: lectern migrate applies the migrations and prints the
// schema version, on the embedded default and on PostgreSQL; running it
// again changes nothing.
func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out := lectern(t, "migrate", "--data-dir", data)
	if !strings.Contains(out, "sqlite://"+filepath.Join(data, "lectern.db")) || !version.MatchString(out) {
		t.Errorf("migrate on the default store printed %q", out)
	}
	if again := lectern(t, "migrate", "--data-dir", data); !strings.Contains(again, ": nothing to apply: already at schema version ") {
		t.Errorf("second migrate printed %q, want that it had nothing to apply", again)
	}

	dsn := pgtest.URL(t)
	out = lectern(t, "migrate", "--database-url", dsn)
	if !strings.Contains(out, "postgres://") || !version.MatchString(out) {
		t.Errorf("migrate on PostgreSQL printed %q", out)
	}
	// The environment variable works too, and postgresql:// is the same.
	env := func(k string) string {
		if k == "LECTERN_DATABASE_URL" {
			return strings.Replace(dsn, "postgres://", "postgresql://", 1)
		}
		return ""
	}
	var stdout bytes.Buffer
	if err := cli.Run(context.Background(), []string{"migrate"}, env, strings.NewReader(""), &stdout, io.Discard); err != nil {
		t.Fatalf("migrate with LECTERN_DATABASE_URL: %v", err)
	}
	if got := stdout.String(); !strings.HasPrefix(got, "database postgresql://") || !strings.Contains(got, ": nothing to apply: already at schema version ") {
		t.Errorf("migrate with LECTERN_DATABASE_URL printed %q", stdout.String())
	}
}

// TestDatabaseURLRefused: a database that refuses the credentials, or a URL
// of no known kind, stops the command with an error naming the setting and
// without the password.
func TestDatabaseURLRefused(t *testing.T) {
	t.Parallel()
	base := pgtest.BaseURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "n0t-the-Passw0rd"
	u.User = url.UserPassword("no_such_lectern_role", secret)
	wrong := u.String()
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
		want []string
	}{
		"serve, wrong credentials in the environment": {[]string{"serve", "--addr", freeAddr(t)},
			map[string]string{"LECTERN_DATABASE_URL": wrong}, []string{"--database-url", "LECTERN_DATABASE_URL", "authentication failed", "no_such_lectern_role"}},
		"admin, wrong credentials": {[]string{"admin", "--database-url", wrong, "org", "list"},
			nil, []string{"--database-url", "authentication failed"}},
		"migrate, unknown scheme": {[]string{"migrate", "--database-url", "mysql://root:" + secret + "@127.0.0.1/db"},
			nil, []string{"--database-url", "unsupported scheme", "postgres://"}},
	} {
		var stderr bytes.Buffer
		err := cli.Run(context.Background(), c.args, func(k string) string { return c.env[k] }, strings.NewReader(""), io.Discard, &stderr)
		if err == nil {
			t.Errorf("%s: the command succeeded", name)
			continue
		}
		msg := err.Error() + "\n" + stderr.String()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not mention %q", name, msg, w)
			}
		}
		if strings.Contains(msg, secret) {
			t.Errorf("%s: the password appears in %q", name, msg)
		}
	}
}

// TestServeOnPostgres runs serve and the admin commands on PostgreSQL: an
// update is built and goes live through the PostgreSQL job queue.
func TestServeOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.URL(t)
	srv := startServe(t, t.TempDir(), "--database-url", dsn)
	base := srv.url
	org := lastLine(lectern(t, "admin", "--database-url", dsn, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, sha := newRepo(t, smallSite("Served from **PostgreSQL**."))
	prj := lastLine(lectern(t, "admin", "--database-url", dsn, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "pg.acme.test"))
	key := lastLine(lectern(t, "admin", "--database-url", dsn, "key", "create", "--org", org, "--name", "ci"))

	st := waitUpdate(t, base, key, trigger(t, base, key, prj))
	if st["status"] != "success" || st["commit"].(map[string]any)["sha"] != sha {
		t.Fatalf("update on PostgreSQL: %v", st)
	}
	if code, body := page(t, base, "pg.acme.test", "/quickstart"); code != 200 || !strings.Contains(body, "<strong>PostgreSQL</strong>") {
		t.Fatalf("live page: %d %.300s", code, body)
	}
	if !strings.Contains(srv.logs.String(), `database="postgres://`) {
		t.Errorf("serve does not log its database: %s", srv.logs.String())
	}
}

// TestRateLimitAcrossAPIProcesses runs two API processes on one PostgreSQL
// database: a key's budget is shared, not granted per process.
func TestRateLimitAcrossAPIProcesses(t *testing.T) {
	t.Parallel()
	dsn := pgtest.URL(t)
	a := startServe(t, t.TempDir(), "--database-url", dsn, "--role", "api", "--rate-limit", "0.01", "--rate-burst", "10")
	b := startServe(t, t.TempDir(), "--database-url", dsn, "--role", "api", "--rate-limit", "0.01", "--rate-burst", "10")
	org := lastLine(lectern(t, "admin", "--database-url", dsn, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	key := lastLine(lectern(t, "admin", "--database-url", dsn, "key", "create", "--org", org, "--name", "ci"))
	allowed, limited := 0, 0
	for i := range 30 {
		srv := a
		if i%2 == 1 {
			srv = b
		}
		code, _, hdr := call(t, "GET", srv.url+"/v1/static-export/jobs/exp_01J00000000000000000000000", key, nil)
		switch code {
		case 404:
			allowed++
		case 429:
			limited++
			if hdr.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
		default:
			t.Fatalf("request %d: status %d", i, code)
		}
	}
	if allowed != 10 || limited != 20 {
		t.Errorf("two API processes allowed %d and limited %d of 30 requests, want the shared burst of 10 allowed", allowed, limited)
	}
}
