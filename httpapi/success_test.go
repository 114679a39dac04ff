package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// parseTime checks that m[k] is an RFC 3339 UTC time and returns it.
func parseTime(t *testing.T, m map[string]any, k string) time.Time {
	t.Helper()
	s, _ := m[k].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		t.Errorf("%s %q is not an RFC 3339 UTC time", k, s)
	}
	return at
}

// wantTime checks that m[k] is an RFC 3339 UTC time near now.
func wantTime(t *testing.T, m map[string]any, k string) time.Time {
	t.Helper()
	at := parseTime(t, m, k)
	if d := time.Since(at); d < -time.Minute || d > time.Minute {
		t.Errorf("%s %v is %s away from now", k, m[k], d)
	}
	return at
}

func TestUpdateFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	trigger := func() string {
		t.Helper()
		resp, body := e.do(t, req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil))
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("trigger: %d %s", resp.StatusCode, body)
		}
		m := decode(t, body)
		id, _ := m["statusId"].(string)
		if !strings.HasPrefix(id, lectern.PrefixUpdate) || len(m) != 1 {
			t.Errorf("202 body %s, want only a statusId upd_…", body)
		}
		if got, want := resp.Header.Get("Location"), "/v1/project/update-status/"+id; got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
		return id
	}
	status := func(id string) map[string]any {
		t.Helper()
		resp, body := e.do(t, req("GET", "/v1/project/update-status/"+id, e.entKey, nil))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status: %d %s", resp.StatusCode, body)
		}
		return decode(t, body)
	}

	first := trigger()
	if n := e.notes.n.Load(); n != 1 {
		t.Errorf("Notify called %d times, want 1", n)
	}
	u := status(first)
	for _, k := range []string{"statusId", "projectId", "status", "source", "createdAt", "startedAt", "endedAt", "summary", "commit", "logs"} {
		if _, ok := u[k]; !ok {
			t.Errorf("update status lacks %q: %v", k, u)
		}
	}
	if u["statusId"] != first || u["projectId"] != e.entProj.ID || u["status"] != "queued" || u["source"] != "api" {
		t.Errorf("queued update %v", u)
	}
	wantTime(t, u, "createdAt")
	if u["startedAt"] != nil || u["endedAt"] != nil || u["commit"] != nil {
		t.Errorf("queued update has startedAt/endedAt/commit: %v", u)
	}
	if logs, ok := u["logs"].([]any); !ok || len(logs) != 0 {
		t.Errorf("logs %v, want []", u["logs"])
	}
	if _, ok := u["supersededBy"]; ok {
		t.Errorf("queued update has supersededBy")
	}

	// A newer update supersedes the queued one.
	second := trigger()
	u = status(first)
	if u["status"] != "superseded" || u["supersededBy"] != second || u["endedAt"] == nil {
		t.Errorf("older queued update: status %v supersededBy %v endedAt %v, want superseded by %s", u["status"], u["supersededBy"], u["endedAt"], second)
	}

	// Drive the newer one to success as a worker would.
	ctx := context.Background()
	job, lease, err := e.raw.ClaimJob(ctx, store.ClaimParams{Kinds: []string{store.KindUpdate}, Owner: "t", Now: time.Now(), LeaseFor: time.Minute})
	if err != nil || job == nil || job.ID != second {
		t.Fatalf("claim update: %v %v", job, err)
	}
	if err := e.raw.StartUpdate(ctx, lease, time.Now()); err != nil {
		t.Fatal(err)
	}
	if u = status(second); u["status"] != "in_progress" || u["startedAt"] == nil {
		t.Errorf("started update %v", u)
	}
	commit := &lectern.Commit{SHA: "0123456789abcdef0123456789abcdef01234567", Ref: "main", Message: "Update docs"}
	err = e.raw.FinishUpdate(ctx, lease, store.UpdateResult{Status: lectern.UpdateSuccess, Summary: "Published 3 pages.", Commit: commit,
		Logs: []string{"fetched", "rendered 3 pages"}, EndedAt: time.Now(),
		Deployment: &lectern.Deployment{ProjectID: e.entProj.ID, Commit: *commit, PageCount: 3}})
	if err != nil {
		t.Fatal(err)
	}
	u = status(second)
	c, _ := u["commit"].(map[string]any)
	if u["status"] != "success" || u["summary"] != "Published 3 pages." || c["sha"] != commit.SHA || c["ref"] != "main" || c["message"] != "Update docs" {
		t.Errorf("finished update %v", u)
	}
	wantTime(t, u, "startedAt")
	wantTime(t, u, "endedAt")
	if logs, _ := u["logs"].([]any); len(logs) != 2 {
		t.Errorf("logs %v, want 2 lines", u["logs"])
	}
}

func TestExportFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	resp, body := e.do(t, req("POST", "/v1/static-export/jobs", e.entKey, []byte(`{"domain":"`+entDomain+`"}`)))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start: %d %s", resp.StatusCode, body)
	}
	job := decode(t, body)
	id, _ := job["jobId"].(string)
	if !strings.HasPrefix(id, lectern.PrefixExport) {
		t.Errorf("jobId %q, want exp_…", id)
	}
	if got, want := resp.Header.Get("Location"), "/v1/static-export/jobs/"+id; got != want {
		t.Errorf("Location %q, want %q", got, want)
	}
	if job["domain"] != entDomain || job["status"] != "queued" || job["progress"] != 0.0 || job["pageCount"] != 0.0 ||
		job["completedAt"] != nil || job["error"] != nil {
		t.Errorf("queued job %v", job)
	}
	if _, ok := job["basePath"]; ok {
		t.Errorf("job has a basePath though none was asked: %v", job)
	}
	wantTime(t, job, "createdAt")
	wantTime(t, job, "updatedAt")

	resp, body = e.do(t, req("GET", "/v1/static-export/jobs/"+id, e.entKey, nil))
	got := decode(t, body)
	if resp.StatusCode != http.StatusOK || got["jobId"] != id || got["createdAt"] != job["createdAt"] || got["status"] != "queued" {
		t.Errorf("GET job: %d %v, want %v", resp.StatusCode, got, job)
	}

	data := e.completeExport(t, id)
	resp, body = e.do(t, req("GET", "/v1/static-export/jobs/"+id, e.entKey, nil))
	got = decode(t, body)
	if resp.StatusCode != http.StatusOK || got["status"] != "completed" || got["progress"] != 100.0 || got["pageCount"] != 12.0 || got["error"] != nil {
		t.Errorf("completed job: %d %v", resp.StatusCode, got)
	}
	wantTime(t, got, "completedAt")

	b := e.bundle(t, id, data)
	if exp := parseTime(t, b, "expiresAt"); time.Until(exp) < 59*time.Minute || time.Until(exp) > 62*time.Minute {
		t.Errorf("expiresAt %v, want about an hour from now", exp)
	}
}

// bundle asks for a bundle link of job id, checks its shape and that it
// downloads data, and returns the body.
func (e *env) bundle(t *testing.T, id string, data []byte) map[string]any {
	t.Helper()
	resp, body := e.do(t, req("POST", "/v1/static-export/jobs/"+id+"/bundle", e.entKey, nil))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("bundle: %d %s", resp.StatusCode, body)
	}
	b := decode(t, body)
	sum := sha256.Sum256(data)
	if b["jobId"] != id || b["sizeBytes"] != float64(len(data)) || b["sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("bundle %v, want job %s, %d bytes, sha256 %x", b, id, len(data), sum)
	}
	link, _ := b["bundleUrl"].(string)
	if !strings.HasPrefix(link, publicURL+"/_lectern/download/") {
		t.Errorf("bundleUrl %q is not under %s/_lectern/download/", link, publicURL)
	}
	// The link reads as it is in the raw body, so it can be copied from a
	// terminal: no \u0026 for "&".
	if !strings.Contains(string(body), `"bundleUrl":"`+link+`"`) {
		t.Errorf("bundleUrl is escaped in the body: %s", body)
	}
	resp, got := e.download(t, link)
	dsum := sha256.Sum256(got)
	if resp.StatusCode != http.StatusOK || hex.EncodeToString(dsum[:]) != b["sha256"] {
		t.Errorf("download: %d, %d bytes with sha256 %x, want 200 and sha256 %v", resp.StatusCode, len(got), dsum, b["sha256"])
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, entDomain+"-export-") {
		t.Errorf("Content-Disposition %q", cd)
	}
	return b
}

// download fetches a link through the handler, with no Authorization.
func (e *env) download(t *testing.T, link string) (*http.Response, []byte) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("bundleUrl %q: %v", link, err)
	}
	return e.do(t, req("GET", u.RequestURI(), "", nil))
}

func TestBundleLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	id := e.startExport(t, e.entKey, entDomain)
	data := e.completeExport(t, id)

	first := e.bundle(t, id, data)["bundleUrl"].(string)
	e.skew.Store(int64(2 * time.Second))
	second := e.bundle(t, id, data)["bundleUrl"].(string)
	if first == second {
		t.Errorf("two bundle calls two seconds apart gave the same link %s", first)
	}
	// Both links work.
	for _, link := range []string{first, second} {
		if resp, _ := e.download(t, link); resp.StatusCode != http.StatusOK {
			t.Errorf("download %s: %d", link, resp.StatusCode)
		}
	}

	u, _ := url.Parse(second)
	q := u.Query()
	exp, _ := strconv.ParseInt(q.Get("expires"), 10, 64)
	sig := q.Get("signature")
	flip := func(s string) string {
		if s[len(s)-1] == 'A' {
			return s[:len(s)-1] + "B"
		}
		return s[:len(s)-1] + "A"
	}
	tampered := map[string]func(url.Values, *url.URL){
		"signature":         func(v url.Values, _ *url.URL) { v.Set("signature", flip(sig)) },
		"no signature":      func(v url.Values, _ *url.URL) { v.Del("signature") },
		"later expires":     func(v url.Values, _ *url.URL) { v.Set("expires", strconv.FormatInt(exp+3600, 10)) },
		"earlier expires":   func(v url.Values, _ *url.URL) { v.Set("expires", strconv.FormatInt(exp-1, 10)) },
		"no expires":        func(v url.Values, _ *url.URL) { v.Del("expires") },
		"another file name": func(_ url.Values, u *url.URL) { u.Path = strings.Replace(u.Path, ".tar.gz", ".tgz", 1) },
	}
	for name, change := range tampered {
		c := *u
		v := c.Query()
		change(v, &c)
		c.RawQuery = v.Encode()
		resp, body := e.download(t, c.String())
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", name, resp.StatusCode, body)
			continue
		}
		wantProblem(t, resp, body, http.StatusForbidden, lectern.EFORBIDDEN)
	}

	// Once expired, a link is refused; a new bundle call gives a working one.
	e.skew.Store(int64(time.Hour + 5*time.Second))
	for _, link := range []string{first, second} {
		resp, body := e.download(t, link)
		p := wantProblem(t, resp, body, http.StatusForbidden, lectern.EFORBIDDEN)
		if !strings.Contains(p.Detail, "expired") {
			t.Errorf("expired link detail %q", p.Detail)
		}
	}
	third := e.bundle(t, id, data)["bundleUrl"].(string)
	if third == first || third == second {
		t.Errorf("bundle after expiry reused a link")
	}
}

// TestBundleLinksAreFresh: each bundle call returns a fresh link, even two
// calls within the same second (the links' clock stands still here).
func TestBundleLinksAreFresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	id := e.startExport(t, e.entKey, entDomain)
	data := e.completeExport(t, id)
	e.frozen.Store(time.Now().UnixNano())
	a := e.bundle(t, id, data)["bundleUrl"]
	b := e.bundle(t, id, data)["bundleUrl"]
	if a == b {
		t.Errorf("two bundle calls in the same second returned the same link %v", a)
	}
}

func TestBundleTTL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{BundleURLTTL: 5 * time.Minute}, nil)
	id := e.startExport(t, e.entKey, entDomain)
	data := e.completeExport(t, id)
	b := e.bundle(t, id, data)
	if exp := parseTime(t, b, "expiresAt"); time.Until(exp) < 4*time.Minute || time.Until(exp) > 6*time.Minute {
		t.Errorf("expiresAt %v, want about 5 minutes from now", exp)
	}
	e.skew.Store(int64(6 * time.Minute))
	resp, body := e.download(t, b["bundleUrl"].(string))
	wantProblem(t, resp, body, http.StatusForbidden, lectern.EFORBIDDEN)
}
