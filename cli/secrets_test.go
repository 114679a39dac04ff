package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lecternpkg "lectern.dev/lectern"
	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store/postgres/pgtest"
	"lectern.dev/lectern/store/sqlite"
)

// repoToken is the token the git server of these tests requires.
const repoToken = "ghp-Lectern-Test-Token-7f3a9c21"

// authGitServer serves the git repository repo over HTTP with git
// http-backend, requiring basic authentication as user with repoToken. It
// returns the repository's URL without credentials.
func authGitServer(t *testing.T, repo, user string) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("git-http-backend is not installed")
	}
	root := filepath.Dir(repo)
	h := &cgi.Handler{Path: backend, Dir: root, Stderr: io.Discard,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != repoToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="docs"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(repo) + "/.git"
}

// run runs a command in-process with stdin and returns its stdout,
// stderr and error.
func run(stdin string, args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), args, noEnv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

// noToken fails when any of the texts holds the token.
func noToken(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, repoToken) {
			t.Errorf("%s shows the repository token: %.500s", what, s)
		}
	}
}

// noTokenInFiles fails when a file under dir holds the token.
func noTokenInFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(repoToken)) {
			t.Errorf("file %s holds the repository token", p)
		}
		return nil
	})
}

// Credentials given apart from the URL, or in it, are stored encrypted,
// used by the update, and never shown or written in clear.
func TestRepoCredentials(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	repo, sha := newRepo(t, smallSite("Private **docs**."))
	repoURL := authGitServer(t, repo, "docs-bot")
	host := strings.TrimPrefix(repoURL, "http://")
	srv := startServe(t, data)
	base := srv.url
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(repoToken+"\n"), 0o600)

	var outputs []string
	create := func(domain, stdin string, args ...string) string {
		t.Helper()
		args = append([]string{"admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Private", "--domain", domain}, args...)
		out, errs, err := run(stdin, args...)
		if err != nil {
			t.Fatalf("project create: %v\n%s", err, errs)
		}
		outputs = append(outputs, out, errs)
		jout, errs, err := run(stdin, append(args[:len(args):len(args)], "--json")...)
		if err == nil {
			t.Fatalf("a second create of %s succeeded", domain)
		}
		outputs = append(outputs, jout, errs)
		return lastLine(out)
	}
	projects := map[string]string{
		"token file":  create("file.acme.test", "", "--repo", "http://docs-bot@"+host, "--repo-token-file", tokenFile),
		"stdin":       create("stdin.acme.test", repoToken+"\n", "--repo", "http://docs-bot@"+host, "--repo-token-file", "-"),
		"in the URL":  create("url.acme.test", "", "--repo", "http://docs-bot:"+repoToken+"@"+host),
		"JSON output": "",
	}
	if n := strings.Count(strings.Join(outputs, "\n"), "warning: --repo holds a password or token"); n != 1 {
		t.Errorf("%d warnings about a token on the command line, want one (for the URL that holds it)", n)
	}
	out, errs, err := run("", "admin", "--data-dir", data, "--json", "project", "create", "--org", org, "--name", "Private",
		"--domain", "json.acme.test", "--repo", "http://docs-bot@"+host, "--repo-token-file", tokenFile)
	if err != nil {
		t.Fatalf("project create --json: %v\n%s", err, errs)
	}
	var created map[string]any
	if err := json.Unmarshal([]byte(out), &created); err != nil || created["repoCredentials"] != true || created["repoUrl"] != repoURL {
		t.Errorf("project create --json = %s (%v): want repoUrl %s and repoCredentials true", out, err, repoURL)
	}
	projects["JSON output"] = created["id"].(string)
	outputs = append(outputs, out, errs)

	list, errs, err := run("", "admin", "--data-dir", data, "--json", "project", "list")
	if err != nil {
		t.Fatal(err, errs)
	}
	outputs = append(outputs, list, lectern(t, "admin", "--data-dir", data, "project", "list"))
	var ps []map[string]any
	json.Unmarshal([]byte(list), &ps)
	if len(ps) != 4 {
		t.Fatalf("project list --json = %s", list)
	}
	for _, p := range ps {
		if p["repoCredentials"] != true || p["repoUrl"] != repoURL {
			t.Errorf("listed project %v: want repoUrl %s and repoCredentials true", p, repoURL)
		}
	}

	for what, prj := range projects {
		st := waitUpdate(t, base, key, trigger(t, base, key, prj))
		b, _ := json.Marshal(st)
		outputs = append(outputs, string(b))
		if st["status"] != "success" || st["commit"].(map[string]any)["sha"] != sha {
			t.Errorf("update with credentials %s: %v", what, st)
		}
	}
	if code, body := page(t, base, "stdin.acme.test", "/quickstart"); code != 200 || !strings.Contains(body, "<strong>docs</strong>") {
		t.Errorf("live page: %d %.300s", code, body)
	}
	noToken(t, "admin, API or update output", outputs...)
	noToken(t, "the server's log", srv.logs.String())
	noTokenInFiles(t, data)
}

// Bad credential settings are refused with a message saying what to do,
// and create nothing.
func TestRepoCredentialsRefused(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(repoToken), 0o600)
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for what, c := range map[string]struct {
		stdin string
		args  []string
		want  string
	}{
		"token for a local path":  {"", []string{"--repo", t.TempDir(), "--repo-token-file", tokenFile}, "needs an http:// or https://"},
		"password twice":          {"", []string{"--repo", "https://u:" + repoToken + "@git.acme.test/x.git", "--repo-token-file", tokenFile}, "give it once"},
		"empty token file":        {"", []string{"--repo", "https://git.acme.test/x.git", "--repo-token-file", empty}, "is empty"},
		"empty standard input":    {"", []string{"--repo", "https://git.acme.test/x.git", "--repo-token-file", "-"}, "standard input is empty"},
		"missing token file":      {"", []string{"--repo", "https://git.acme.test/x.git", "--repo-token-file", empty + "-missing"}, "--repo-token-file"},
		"credentials for ssh URL": {"", []string{"--repo", "ssh://u:" + repoToken + "@git.acme.test/x.git"}, "http:// and https:// repositories only"},
	} {
		out, errs, err := run(c.stdin, append([]string{"admin", "--data-dir", data, "project", "create", "--org", org, "--name", "P", "--domain", "p.acme.test"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", what, err, c.want)
		}
		if err != nil {
			noToken(t, what, err.Error(), out, errs)
		}
	}
	if list := lectern(t, "admin", "--data-dir", data, "--json", "project", "list"); strings.TrimSpace(list) != "[]" {
		t.Errorf("refused creates stored projects: %s", list)
	}
}

// Credentials that an earlier release kept in a project's repository URL
// are moved into encrypted storage at start, with a log line that does
// not show them; the clear link-signing key of earlier releases goes with
// the migration that drops its table; the database files keep neither in
// clear.
func TestOldSecretsMovedAtStart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	repo, sha := newRepo(t, smallSite("Moved."))
	repoURL := authGitServer(t, repo, "docs-bot")
	withCreds := strings.Replace(repoURL, "http://", "http://docs-bot:"+repoToken+"@", 1)
	oldLinkKey := []byte("old-clear-link-signing-key-0123456789abcdef")

	// The store as an earlier release left it.
	lectern(t, "admin", "--data-dir", data, "org", "list")
	st, err := sqlite.Open(t.Context(), filepath.Join(data, "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	o := &lecternpkg.Organization{Name: "Acme", Plan: lecternpkg.PlanEnterprise}
	st.CreateOrg(t.Context(), o)
	p := &lecternpkg.Project{OrgID: o.ID, Name: "Old", RepoURL: withCreds, Branch: "main", DocsRoot: "/",
		Domains: []string{"old.acme.test"}, DeploymentType: lecternpkg.DeploymentCloud}
	if err := st.CreateProject(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// The table in which earlier releases kept the link-signing key in
	// clear, with the key, and the schema before the migration that drops
	// it.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "lectern.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL, created_at INTEGER NOT NULL)`,
		`DELETE FROM schema_migrations WHERE version = 5`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	if _, err := db.Exec(`INSERT INTO secrets VALUES ('link-signing-key', ?, 0)`, oldLinkKey); err != nil {
		t.Fatal(err)
	}
	db.Close()

	list, errs, err := run("", "admin", "--data-dir", data, "--json", "project", "list")
	if err != nil {
		t.Fatal(err, errs)
	}
	if !strings.Contains(errs, "moved the credentials") || !strings.Contains(errs, p.ID) {
		t.Errorf("admin did not log the move: %q", errs)
	}
	if !strings.Contains(list, `"repoCredentials": true`) || !strings.Contains(list, `"repoUrl": "`+repoURL+`"`) {
		t.Errorf("project list after the move: %s", list)
	}
	noToken(t, "admin output after the move", list, errs)

	srv := startServe(t, data)
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", o.ID, "--name", "ci"))
	if upd := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, p.ID)); upd["status"] != "success" || upd["commit"].(map[string]any)["sha"] != sha {
		t.Errorf("update with moved credentials: %v", upd)
	}
	noToken(t, "the server's log", srv.logs.String())
	srv.stop()
	noTokenInFiles(t, data)
	for _, name := range []string{"lectern.db", "lectern.db-wal"} {
		if b, _ := os.ReadFile(filepath.Join(data, name)); bytes.Contains(b, oldLinkKey) {
			t.Errorf("%s still holds the clear link-signing key of earlier releases", name)
		}
	}
}

// serve on PostgreSQL needs a secret key and says how to make one.
func TestServeNeedsSecretKeyOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb syncBuffer
	err := cli.Run(ctx, []string{"serve", "--addr", freeAddr(t), "--data-dir", t.TempDir(), "--database-url", dsn}, noEnv,
		strings.NewReader(""), io.Discard, &errb)
	if err == nil || !strings.Contains(err.Error(), "head -c 32 /dev/urandom | base64") || !strings.Contains(err.Error(), "--secret-key-file") {
		t.Errorf("serve on PostgreSQL without a key: %v, want an error saying how to create one", err)
	}
	// The key itself in LECTERN_SECRET_KEY; a bad one is named, not shown.
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "LECTERN_SECRET_KEY" {
				return v
			}
			return ""
		}
	}
	orgE := lastLine(lectern(t, "admin", "--database-url", dsn, "org", "create", "--name", "Env"))
	var out bytes.Buffer
	err = cli.Run(context.Background(), []string{"admin", "--database-url", dsn, "project", "create", "--org", orgE, "--name", "P",
		"--domain", "pg-env.acme.test", "--repo", "https://docs-bot:" + repoToken + "@git.acme.test/x.git"}, env(testSecretKey),
		strings.NewReader(""), &out, io.Discard)
	if err != nil || !strings.Contains(out.String(), "credentials stored encrypted") {
		t.Errorf("admin with LECTERN_SECRET_KEY: %v\n%s", err, out.String())
	}
	noToken(t, "admin output", out.String())
	const badKey = "not-a-key-but-a-secret-anyway"
	err = cli.Run(context.Background(), []string{"admin", "--database-url", dsn, "org", "list"}, env(badKey),
		strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "LECTERN_SECRET_KEY") || strings.Contains(err.Error(), badKey) {
		t.Errorf("admin with a bad LECTERN_SECRET_KEY: %v", err)
	}

	// admin works without one, except to store credentials.
	org := lastLine(lectern(t, "admin", "--database-url", dsn, "org", "create", "--name", "Acme"))
	_, _, err = run("", "admin", "--database-url", dsn, "project", "create", "--org", org, "--name", "P", "--domain", "pg-key.acme.test",
		"--repo", "https://docs-bot:"+repoToken+"@git.acme.test/x.git")
	if err == nil || !strings.Contains(err.Error(), "secret key") || strings.Contains(err.Error(), repoToken) {
		t.Errorf("admin storing credentials without a key: %v", err)
	}
}

// On PostgreSQL, with the key given to serve and admin, credentials are
// stored encrypted (the table holds no clear token), the update uses them,
// and the link-signing key is in no table.
func TestRepoCredentialsOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.URL(t)
	keyFile := filepath.Join(t.TempDir(), "secret.key")
	os.WriteFile(keyFile, []byte(testSecretKey), 0o600)
	repo, sha := newRepo(t, smallSite("From **PostgreSQL**."))
	repoURL := authGitServer(t, repo, "docs-bot")
	srv := startServe(t, t.TempDir(), "--database-url", dsn, "--secret-key-file", keyFile)
	admin := func(stdin string, args ...string) string {
		out, errs, err := run(stdin, append([]string{"admin", "--database-url", dsn, "--secret-key-file", keyFile}, args...)...)
		if err != nil {
			t.Fatalf("admin %v: %v\n%s", args, err, errs)
		}
		noToken(t, "admin output", out, errs)
		return lastLine(out)
	}
	org := admin("", "org", "create", "--name", "Acme", "--plan", "enterprise")
	prj := admin(repoToken, "project", "create", "--org", org, "--name", "Docs", "--domain", "pg-creds.acme.test",
		"--repo", strings.Replace(repoURL, "http://", "http://docs-bot@", 1), "--repo-token-file", "-")
	key := admin("", "key", "create", "--org", org, "--name", "ci")
	st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj))
	if st["status"] != "success" || st["commit"].(map[string]any)["sha"] != sha {
		t.Fatalf("update on PostgreSQL with credentials: %v", st)
	}
	b, _ := json.Marshal(st)
	noToken(t, "update status", string(b))
	noToken(t, "the server's log", srv.logs.String())

	db := openDB(t, dsn)
	var url, creds string
	if err := db.QueryRow(t.Context(), `SELECT repo_url, repo_credentials FROM projects WHERE id = $1`, prj).Scan(&url, &creds); err != nil {
		t.Fatal(err)
	}
	if url != repoURL || !strings.HasPrefix(creds, "v1.") {
		t.Errorf("stored repo_url %q, repo_credentials %q: want the URL without credentials and a sealed value", url, creds)
	}
	noToken(t, "the projects table", url, creds)
	var n int
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'secrets'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d secrets tables (%v), want none: the link-signing key is derived, not stored", n, err)
	}
}

// A data folder whose projects hold credentials sealed with one key is
// not given another: without the key file, admin and serve refuse and
// make no new key; with another key, they name both.
func TestSecretKeyMismatchRefused(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "secret.key")
	if err := os.WriteFile(keyFile, []byte(testSecretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	org := lastLine(lectern(t, "admin", "--data-dir", data, "--secret-key-file", keyFile, "org", "create", "--name", "Acme"))
	if _, errs, err := run(repoToken, "admin", "--data-dir", data, "--secret-key-file", keyFile, "project", "create", "--org", org,
		"--name", "P", "--domain", "docs.acme.test", "--repo", "https://git.acme.test/x.git", "--repo-token-file", "-"); err != nil {
		t.Fatal(err, errs)
	}
	stored, err := secrets.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}

	generated := filepath.Join(data, "secret.key")
	_, _, err = run("", "admin", "--data-dir", data, "org", "list")
	if err == nil || !strings.Contains(err.Error(), "is missing") || !strings.Contains(err.Error(), stored.ID()) {
		t.Errorf("admin without the key that sealed the credentials: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = cli.Run(ctx, []string{"serve", "--addr", freeAddr(t), "--data-dir", data}, noEnv, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), stored.ID()) {
		t.Errorf("serve without the key that sealed the credentials: %v", err)
	}
	if _, err := os.Stat(generated); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a new key file was made over sealed credentials: %v", err)
	}

	other := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(other, []byte(secrets.Generate()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	otherKey, err := secrets.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = run("", "admin", "--data-dir", data, "--secret-key-file", other, "org", "list")
	if err == nil || !strings.Contains(err.Error(), stored.ID()) || !strings.Contains(err.Error(), otherKey.ID()) {
		t.Errorf("admin with another key: %v, want both key ids", err)
	}
	if out := lectern(t, "admin", "--data-dir", data, "--secret-key-file", keyFile, "org", "list"); !strings.Contains(out, "Acme") {
		t.Errorf("admin with the right key: %s", out)
	}
}

// A key file others can read works, with a warning that says how to make
// it private; a private one gives none.
func TestSecretKeyFileModeWarning(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "secret.key")
	if err := os.WriteFile(keyFile, []byte(testSecretKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keyFile, 0o644); err != nil { // past the umask
		t.Fatal(err)
	}
	_, errs, err := run("", "admin", "--data-dir", data, "--secret-key-file", keyFile, "org", "list")
	if err != nil {
		t.Fatal(err, errs)
	}
	if !strings.Contains(errs, "can be read by other users") || !strings.Contains(errs, "chmod 600 "+keyFile) {
		t.Errorf("no warning for a key file of mode 0644:\n%s", errs)
	}
	if strings.Contains(errs, testSecretKey) {
		t.Errorf("the warning shows the key:\n%s", errs)
	}
	if err := os.Chmod(keyFile, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, _ := run("", "admin", "--data-dir", data, "--secret-key-file", keyFile, "org", "list"); strings.Contains(errs, "other users") {
		t.Errorf("a warning for a private key file:\n%s", errs)
	}
}
