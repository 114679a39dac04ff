// Package dashboard is Lectern's web dashboard, served by `lectern serve`
// under /dashboard/ on the server's own hosts only (never on a project's
// docs domain): sign-in with a password or an OpenID Connect provider
// (oidc.go), the one-time welcome link that sets a password, sign-out,
// and the organization's pages: projects with their updates, build logs,
// deployments, access (repository token, deploy key) and deletion
// (projects.go, project_*.go, access.go); webhooks and their deliveries
// (webhooks.go); exports, their progress and bundle links (exports.go);
// analytics (analytics*.go, with the SVG chart of package chart); API
// keys with the projects' ids (keys.go); and the organization's plan,
// features, members and the user's own account (org*.go).
//
// Pages are rendered on the server from html/template; one small script
// of its own (assets/dashboard.js) adds copy buttons and reloads the
// parts of a page that change while a build or an export runs, and every
// page works without it. Templates and assets are embedded. Every
// response carries a strict Content-Security-Policy (default-src 'self',
// no inline script or style), refuses framing and sends no referrer;
// pages are never cached.
//
// A signed-in browser holds a session token in a host-only cookie
// (sessionCookie); the store keeps its hash, with a sliding expiry of
// lectern.SessionIdleTTL. Every form carries a CSRF token: the session's
// secret once signed in, and before that (sign-in, welcome) a random token
// also set in a cookie (double submit). Sign-ins are rate limited per
// client address, and lock an account out after lectern.SignInLockAfter
// failures in a row. The dashboard acts as the signed-in user through
// package actions, as the API does; it never handles admin API keys
// except to show a new one once.
package dashboard

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Prefix is the path under which the dashboard is served.
const Prefix = "/dashboard/"

// SignInsPerMinute is how many sign-in (and welcome) attempts one client
// address may make per minute, in a burst of as many.
const SignInsPerMinute = 10

// csp is every response's Content-Security-Policy: nothing but this
// server's own files, no inline script or style, no framing.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Config holds the dashboard's settings.
type Config struct {
	// Hosts are the server's own hosts: the only ones the dashboard
	// answers on. nil means the names every server has.
	Hosts *lectern.ServerHosts
	// Secure says the dashboard is reached over https (the public URL is
	// https, maybe behind a proxy that ends TLS): cookies are Secure and
	// the session cookie takes the __Host- prefix. A request that came
	// over TLS to this process is treated as secure anyway.
	Secure bool
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client, for the sign-in rate limit.
	TrustedProxies []netip.Prefix
	// Now is the clock; nil is time.Now (tests set it).
	Now func() time.Time
	// Actions performs what the signed-in user does to the organization's
	// projects and exports, as the API does. nil: the pages that act
	// answer that the server cannot (tests of sign-in only).
	Actions *actions.Service
	// PublicURL is the server's public URL (links shown to copy: the API's
	// address, invitations, the selfhost configuration); "" means the
	// request's own scheme and host.
	PublicURL string
	// OIDC, when set, adds "Sign in with single sign-on".
	OIDC *OIDCConfig
}

// Handler serves the dashboard.
type Handler struct {
	log     *slog.Logger
	store   store.Store
	cfg     Config
	pages   map[string]*template.Template
	assets  http.Handler
	limiter httpapi.Limiter
	mux     *http.ServeMux

	dummyOnce sync.Once
	dummy     string // a password hash to verify against for unknown emails
}

// New returns the dashboard of st.
func New(log *slog.Logger, st store.Store, cfg Config) *Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{log: log, store: st, cfg: cfg, pages: parsePages(),
		limiter: httpapi.NewMemoryLimiter(httpapi.RateLimit{Rate: SignInsPerMinute / 60.0, Burst: SignInsPerMinute}),
		mux:     http.NewServeMux()}
	sub, _ := fs.Sub(assetFS, "assets")
	h.assets = http.StripPrefix(Prefix+"assets/", http.FileServerFS(sub))
	h.routes()
	return h
}

// Mount returns a handler that sends the dashboard's paths on the server's
// own hosts to h and everything else, docs domains' /dashboard pages
// included, to next.
func (h *Handler) Mount(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isDashboardPath(r.URL.Path) && h.cfg.Hosts.Contains(r.Host) {
			h.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isDashboardPath(p string) bool { return p == "/dashboard" || strings.HasPrefix(p, Prefix) }

// ServeHTTP serves a dashboard request; on a host that is not the
// server's own it answers 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	if !h.cfg.Hosts.Contains(r.Host) || !isDashboardPath(r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, Prefix+"assets/") {
		hd.Set("Cache-Control", "no-cache")
	} else {
		hd.Set("Cache-Control", "no-store")
	}
	// Forms are small: a name, an email, a password. Anything larger is
	// refused before it is parsed (net/http would read 10 MB of it).
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	h.mux.ServeHTTP(w, r)
}

// maxForm bounds a form's body: room for the largest field the forms
// take (a repository token of actions.MaxRepoToken, form-encoded) and
// the rest of its form.
const maxForm = 4*actions.MaxRepoToken + 4<<10

// router is where routes are registered: the Handler's ServeMux, or a
// test's list of every route.
type router interface {
	Handle(pattern string, handler http.Handler)
	HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request))
}

func (h *Handler) routes() { h.register(h.mux) }

// register registers every route of the dashboard on m.
func (h *Handler) register(m router) {
	m.Handle("GET "+Prefix+"assets/", h.assets)
	m.HandleFunc("GET /dashboard", redirectTo(Prefix+"projects"))
	m.HandleFunc("GET "+Prefix+"{$}", redirectTo(Prefix+"projects"))
	m.HandleFunc("GET "+Prefix+"signin", h.signInForm)
	m.HandleFunc("POST "+Prefix+"signin", h.signIn)
	m.HandleFunc("GET "+Prefix+"welcome", h.welcomeForm)
	m.HandleFunc("POST "+Prefix+"welcome", h.welcome)
	m.HandleFunc("POST "+Prefix+"signout", h.signedIn(h.signOut))
	m.HandleFunc("GET "+Prefix+"keys", h.signedIn(h.keys))
	m.HandleFunc("POST "+Prefix+"keys", h.signedIn(h.createKey))
	m.HandleFunc("GET "+Prefix+"keys/{id}/revoke", h.signedIn(h.revokeForm))
	m.HandleFunc("POST "+Prefix+"keys/{id}/revoke", h.signedIn(h.revokeKey))
	h.projectRoutes(m)
	h.accessRoutes(m)
	h.exportRoutes(m)
	h.analyticsRoutes(m)
	h.orgRoutes(m)
	h.oidcRoutes(m)
	m.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		h.render(w, http.StatusNotFound, "error", pageData{Title: "Not found", Message: "There is no dashboard page at this address."})
	})
}

func redirectTo(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, path, http.StatusSeeOther) }
}

// pageData is what every template gets.
type pageData struct {
	Title   string
	User    *lectern.User // nil before sign-in
	CSRF    string
	Message string // an error to show
	Notice  string // a success to show
	Email   string
	Token   string // the welcome link's token
	Keys    []*lectern.APIKey
	Project []*lectern.Project
	Key     *lectern.APIKey // the key of the revoke page, or the new one
	Secret  string          // a new key, shown once
	Owner   bool
	// Nav is the top navigation's current entry: "projects", "exports",
	// "analytics", "webhooks", "keys" or "org".
	Nav string
	// Data is the page's own view (each page file defines its type).
	Data any
	// SSO says the sign-in page offers single sign-on (Config.OIDC).
	SSO bool
}

var funcs = template.FuncMap{
	"when": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			return v.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if v != nil {
				return v.UTC().Format("2006-01-02 15:04 UTC")
			}
		}
		return ""
	},
}

// parsePages parses each page template with the layout.
func parsePages() map[string]*template.Template {
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	names, _ := fs.Glob(templateFS, "templates/*.html")
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		pages[name] = template.Must(template.Must(layout.Clone()).ParseFS(templateFS, n))
	}
	return pages
}

// render writes a page, or a bare 500 when its template fails.
func (h *Handler) render(w http.ResponseWriter, status int, page string, d pageData) {
	d.SSO = h.cfg.OIDC != nil
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, "layout.html", d); err != nil {
		h.log.Error("dashboard: render page", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// renderPart writes the template part (a {{define}} of page, without the
// layout): the fragments that dashboard.js reloads into a live page.
func (h *Handler) renderPart(w http.ResponseWriter, page, part string, d pageData) {
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, part, d); err != nil {
		h.log.Error("dashboard: render part", "page", page, "part", part, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// page returns the pageData of a signed-in page: its title, navigation
// entry and view, with the user, CSRF token and role filled in.
func page(r *http.Request, title, nav string, data any) pageData {
	s := sessionOf(r)
	return pageData{Title: title, User: s.user, CSRF: s.session.CSRF, Owner: s.user.Role == lectern.RoleOwner, Nav: nav, Data: data}
}

// requireOwner refuses a member with a 403 page naming what only owners
// do ("manage API keys"), and reports whether the user is an owner.
func (h *Handler) requireOwner(w http.ResponseWriter, r *http.Request, what string) bool {
	if sessionOf(r).user.Role != lectern.RoleOwner {
		h.fail(w, r, http.StatusForbidden, "Only the organization's owners "+what+": ask one of them.")
		return false
	}
	return true
}

// failed renders err from an action as an error page: a coded error
// (lectern.Error) with its status and message, anything else as a 500
// that is logged. Pages that redisplay a form show lectern.ErrorMessage
// themselves instead.
func (h *Handler) failed(w http.ResponseWriter, r *http.Request, what string, err error) {
	code := lectern.ErrorCode(err)
	if code == "" || code == lectern.EINTERNAL {
		h.internal(w, r, what, err)
		return
	}
	h.fail(w, r, httpapi.StatusOf(code), lectern.ErrorMessage(err))
}

// actions returns the action service, or renders a 503 when the server
// gave the dashboard none.
func (h *Handler) actions(w http.ResponseWriter, r *http.Request) *actions.Service {
	if h.cfg.Actions == nil {
		h.fail(w, r, http.StatusServiceUnavailable, "This server's dashboard cannot act on projects: it was started without them.")
	}
	return h.cfg.Actions
}

// ownerActions is actions for a route only owners use: nil, with the
// page already written, for a member (403) or a server without actions.
func (h *Handler) ownerActions(w http.ResponseWriter, r *http.Request, what string) *actions.Service {
	if !h.requireOwner(w, r, what) {
		return nil
	}
	return h.actions(w, r)
}

// publicURL is the server's public URL without a trailing slash: the
// configured one, or the request's own scheme and host.
func (h *Handler) publicURL(r *http.Request) string {
	if h.cfg.PublicURL != "" {
		return strings.TrimRight(h.cfg.PublicURL, "/")
	}
	scheme := "http"
	if h.secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// fail renders the error page with status and message.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	d := pageData{Title: http.StatusText(status), Message: msg}
	if s := sessionOf(r); s != nil {
		d.User, d.CSRF = s.user, s.session.CSRF
	}
	h.render(w, status, "error", d)
}

// internal logs err (never a secret: store errors only) and renders a 500.
func (h *Handler) internal(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.log.Error("dashboard: "+what, "path", r.URL.Path, "err", err)
	h.fail(w, r, http.StatusInternalServerError, "Something went wrong on the server. Try again in a moment.")
}

func (h *Handler) secure(r *http.Request) bool { return h.cfg.Secure || r.TLS != nil }

// orgProjects lists every project of org, newest first: the keys page
// must give every project's id, the export form every domain.
func (h *Handler) orgProjects(r *http.Request, org string) ([]*lectern.Project, error) {
	return h.store.ListProjects(r.Context(), org, store.Page{})
}
