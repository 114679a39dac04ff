package dashboard

import (
	"bytes"
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/password"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

const (
	serverHost = "lectern.example.com"
	docsDomain = "docs.acme.test"
	ownerPW    = "correct horse battery"
	memberPW   = "member password 1"
)

// env is a dashboard on a SQLite store with two organizations: acme (an
// owner, a member, a project) and other (a key).
type env struct {
	t        *testing.T
	st       store.Store
	h        *Handler
	logs     *syncBuffer
	mu       sync.Mutex
	now      time.Time
	acme     *lectern.Organization
	other    *lectern.Organization
	owner    *lectern.User
	member   *lectern.User
	project  *lectern.Project
	otherKey *lectern.APIKey
	secrets  []string // what must never reach the log
	jobs     *countNotifier
}

// countNotifier counts the jobs the dashboard queued.
type countNotifier struct{ n atomic.Int64 }

func (c *countNotifier) Notify() { c.n.Add(1) }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, st: st, logs: &syncBuffer{}, now: time.Now()}
	e.acme = &lectern.Organization{Name: "Acme", Plan: lectern.PlanFree}
	e.other = &lectern.Organization{Name: "Other", Plan: lectern.PlanFree}
	for _, o := range []*lectern.Organization{e.acme, e.other} {
		if err := st.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	e.owner = e.user("owner@acme.test", lectern.RoleOwner, ownerPW)
	e.member = e.user("member@acme.test", lectern.RoleMember, memberPW)
	e.project = &lectern.Project{OrgID: e.acme.ID, Name: "Acme docs", RepoURL: "https://git.example/acme.git", Branch: "main",
		DocsRoot: "/", Domains: []string{docsDomain}, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, e.project); err != nil {
		t.Fatal(err)
	}
	secret := lectern.NewAPIKey()
	e.otherKey = &lectern.APIKey{OrgID: e.other.ID, Name: "other CI", Hint: lectern.APIKeyHint(secret), Hash: lectern.HashAPIKey(secret)}
	if err := st.CreateAPIKey(ctx, e.otherKey); err != nil {
		t.Fatal(err)
	}
	if cfg.Hosts == nil {
		cfg.Hosts, _ = lectern.NewServerHosts("https://" + serverHost)
	}
	cfg.Now = func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }
	if cfg.Actions == nil {
		// No bucket: links are signed, never served, in these tests.
		e.jobs = &countNotifier{}
		cfg.Actions = &actions.Service{Store: st, Jobs: e.jobs, Hosts: cfg.Hosts, Now: cfg.Now,
			Links: &blobstore.LocalLinks{PublicURL: "https://" + serverHost, Key: bytes.Repeat([]byte{7}, 32), Now: cfg.Now}}
	}
	e.h = New(slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), st, cfg)
	e.secrets = append(e.secrets, ownerPW, memberPW)
	t.Cleanup(func() {
		out := e.logs.String()
		for _, s := range e.secrets {
			if strings.Contains(out, s) {
				t.Errorf("the log holds a secret (%.8s…)", s)
			}
		}
	})
	return e
}

func (e *env) user(email string, role lectern.Role, pw string) *lectern.User {
	e.t.Helper()
	u := &lectern.User{OrgID: e.acme.ID, Email: email, Role: role}
	if pw != "" {
		hash, err := password.Hash(pw)
		if err != nil {
			e.t.Fatal(err)
		}
		u.PasswordHash, u.PasswordSetAt = hash, time.Now()
	}
	if err := e.st.CreateUser(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
	return u
}

func (e *env) advance(d time.Duration) { e.mu.Lock(); e.now = e.now.Add(d); e.mu.Unlock() }

// browser is a client of the dashboard with its own cookies and address.
type browser struct {
	e       *env
	host    string
	addr    string
	cookies map[string]*http.Cookie
	last    *http.Response
	body    string
}

func (e *env) browser(addr string) *browser {
	return &browser{e: e, host: serverHost, addr: addr + ":1234", cookies: map[string]*http.Cookie{}}
}

// do sends a request and keeps the cookies it sets; it returns the status.
func (b *browser) do(method, path string, form url.Values) int {
	b.e.t.Helper()
	var r *http.Request
	if form != nil {
		r = httptest.NewRequest(method, "http://"+b.host+path, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, "http://"+b.host+path, nil)
	}
	r.RemoteAddr = b.addr
	for _, c := range b.cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	b.e.h.ServeHTTP(w, r)
	b.last = w.Result()
	b.body = w.Body.String()
	for _, c := range b.last.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return b.last.StatusCode
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the last page's first form.
func (b *browser) csrf() string {
	b.e.t.Helper()
	m := csrfRe.FindStringSubmatch(b.body)
	if m == nil {
		b.e.t.Fatalf("no CSRF field on the page:\n%s", b.body)
	}
	return m[1]
}

// signIn signs in through the form and returns the POST's status.
func (b *browser) signIn(email, pw string) int {
	b.e.t.Helper()
	if s := b.do("GET", "/dashboard/signin", nil); s != 200 {
		b.e.t.Fatalf("GET signin: %d", s)
	}
	return b.do("POST", "/dashboard/signin", url.Values{"csrf": {b.csrf()}, "email": {email}, "password": {pw}})
}

// has reports whether the last page shows text (HTML-escaped as a page
// would hold it).
func (b *browser) has(text string) bool {
	return strings.Contains(b.body, html.EscapeString(text)) || strings.Contains(b.body, text)
}
