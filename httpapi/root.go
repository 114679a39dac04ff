package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"mime"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"

	"lectern.dev/lectern"
)

// What a request that no route takes is told. On the server's own hosts,
// GET / says what this server is and where to go (the dashboard, the
// OpenAPI document, health), as a page to browsers and as JSON to anything
// else; other paths stay "no API route matches". On any other host (no
// project has it as a domain, or the sites would have answered) a path
// outside /v1 says that no site is published for that host: the reader
// came for a docs site, not the API. /v1 paths on such hosts keep the
// API's answers, so an API reached by a name the server was not told of
// works as before.

// maxShownHost bounds the Host shown back: the header is the client's, up
// to the server's header limit, and a DNS name has at most 253 bytes.
const maxShownHost = 253

// pageStyle is the pages' only style, allowed by its hash in pageCSP: the
// pages load nothing, so they stay whole behind any proxy and under the
// strictest policy. The colours follow the reader's light or dark scheme.
const pageStyle = `:root{color-scheme:light dark;--fg:#1c1e21;--bg:#fff;--muted:#5f6368;--link:#0b57d0;--code:#f1f3f4}` +
	`@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--bg:#17181a;--muted:#a0a4a8;--link:#8ab4f8;--code:#2a2c2f}}` +
	`body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}` +
	`main{max-width:40rem;margin:0 auto;padding:3rem 1.25rem}h1{font-size:1.6rem;margin:0 0 1rem;overflow-wrap:anywhere}` +
	`h1 small{font-size:1rem;font-weight:400;color:var(--muted)}a{color:var(--link)}li{margin:.5rem 0}p,li{overflow-wrap:anywhere}` +
	`code{background:var(--code);padding:.1rem .3rem;border-radius:4px;font-size:.9em}.muted{color:var(--muted)}`

// pageCSP allows the pages nothing but their own style: no script, no
// request to anywhere, no framing.
var pageCSP = func() string {
	sum := sha256.Sum256([]byte(pageStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

var rootPages = template.Must(template.New("").Parse(`
{{- define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
<style>` + pageStyle + `</style>
</head>
<body>
<main>
{{end}}
{{- define "root"}}{{template "head" .}}<h1>Lectern <small>{{.Version}}</small></h1>
<p>This is a Lectern server. It serves documentation sites at their own domains, and here, at its own address, its dashboard and API.</p>
<ul>
<li><a href="{{.Links.Dashboard}}">Dashboard</a>: projects, deploys, exports, analytics and API keys. The server's operator makes an organization's first owner with <code>lectern admin user create</code>, which prints a one-time sign-in link.</li>
<li><a href="{{.Links.OpenAPI}}">API</a>: the OpenAPI document of the API under <code>/v1</code>. Calls need an organization's admin API key (<code>lectern admin key create</code>), sent as <code>Authorization: Bearer lct_…</code>.</li>
<li><a href="{{.Links.Health}}">Health</a>: answers <code>{"status":"ok"}</code> while the server runs.</li>
</ul>
</main>
</body>
</html>
{{end}}
{{- define "nosite"}}{{template "head" .}}<h1>No site is published for host <code>{{.Host}}</code></h1>
<p>This Lectern server has no documentation site for this host name: no project has it as a domain.</p>
<p class="muted">If you run this server: add the domain to a project (its settings in the dashboard, or <code>lectern admin project update</code> with every <code>--domain</code> the project keeps), then deploy the project. Otherwise, check the address.</p>
</main>
</body>
</html>
{{end}}
{{- define "unavailable"}}{{template "head" .}}<h1>The site for host <code>{{.Host}}</code> cannot be looked up right now</h1>
<p>Try again in a few seconds.</p>
</main>
</body>
</html>
{{end}}`))

// rootLinks are where the root page sends its reader.
type rootLinks struct {
	Dashboard string `json:"dashboard"`
	OpenAPI   string `json:"openapi"`
	Health    string `json:"health"`
}

// rootDocument is the root's answer to API clients.
type rootDocument struct {
	Name        string    `json:"name"`
	Version     string    `json:"version"`
	Description string    `json:"description"`
	Links       rootLinks `json:"links"`
}

var serverLinks = rootLinks{Dashboard: "/dashboard/", OpenAPI: "/v1/openapi.json", Health: "/healthz"}

// buildVersion is the version of a binary built without one given: its
// module's version (go install ...@v1.2.3), else "dev".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// fallback answers what no route takes (see the top of this file).
func (a *api) fallback(w http.ResponseWriter, r *http.Request) {
	apiPath := r.URL.Path == "/v1" || strings.HasPrefix(r.URL.Path, "/v1/")
	switch {
	case a.isServerHost(r.Host) && r.URL.Path == "/":
		a.root(w, r)
	case a.isServerHost(r.Host) || apiPath:
		writeError(w, r, a.log, lectern.Errorf(lectern.ENOTFOUND, "No API route matches %s %s.", r.Method, r.URL.Path))
	default:
		a.noSite(w, r)
	}
}

// root is the server's own root: what this is and where to go.
func (a *api) root(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, r, a.log, lectern.Errorf(lectern.EMETHOD, "/ accepts GET, HEAD."))
		return
	}
	w.Header().Set("Vary", "Accept")
	if wantsHTML(r.Header.Values("Accept")) {
		writeHTMLPage(w, http.StatusOK, "root", map[string]any{"Title": "Lectern", "Version": a.cfg.Version, "Links": serverLinks})
		return
	}
	writeJSON(w, http.StatusOK, rootDocument{Name: "Lectern", Version: a.cfg.Version,
		Description: "A Lectern server: documentation sites at their own domains; here, its dashboard, its API under /v1 and its health.",
		Links:       serverLinks})
}

// noSite answers a request for a host that is neither the server's own
// nor a project's domain: 404, or 503 while the domain cannot be looked up.
func (a *api) noSite(w http.ResponseWriter, r *http.Request) {
	host := lectern.Truncate(lectern.HostName(r.Host), maxShownHost)
	w.Header().Set("Vary", "Accept")
	html := wantsHTML(r.Header.Values("Accept"))
	if a.sites != nil && a.sites.LookupFailed(r.Host) {
		if html {
			w.Header().Set("Retry-After", "5")
			writeHTMLPage(w, http.StatusServiceUnavailable, "unavailable", map[string]any{"Title": "Try again shortly", "Host": host})
			return
		}
		writeError(w, r, a.log, &lectern.Error{Code: lectern.EUNAVAILABLE, RetryAfterSeconds: 5,
			Message: "The site for host " + strconv.Quote(host) + " cannot be looked up right now; try again in a few seconds."})
		return
	}
	if html {
		writeHTMLPage(w, http.StatusNotFound, "nosite", map[string]any{"Title": "No site at this address", "Host": host})
		return
	}
	writeError(w, r, a.log, lectern.Errorf(lectern.ENOTFOUND,
		"No site is published for host %s: no project has this domain. To publish one there, add the domain to a project and deploy it; this server's API is under /v1 at its own address.",
		strconv.Quote(host)))
}

// writeHTMLPage writes one of rootPages with the headers of a page that runs
// nothing and loads nothing.
func writeHTMLPage(w http.ResponseWriter, status int, name string, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	rootPages.ExecuteTemplate(w, name, data)
}

// wantsHTML reports whether the Accept headers ask for a page: they name
// text/html (or XHTML) with a non-zero quality, no lower than JSON's, as
// browsers do. Anything else, no Accept and */* included, gets JSON.
func wantsHTML(accept []string) bool {
	qHTML, qJSON := -1.0, -1.0
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v <= 1 {
					q = v
				}
			}
			switch typ {
			case "text/html", "application/xhtml+xml":
				qHTML = max(qHTML, q)
			case "application/json", "application/problem+json":
				qJSON = max(qJSON, q)
			}
		}
	}
	return qHTML > 0 && qHTML >= qJSON
}
