package cli_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"lectern.dev/lectern/internal/browsertest"
)

// TestDashboardBrowser walks the dashboard in Chromium against a real
// lectern serve: the welcome link from `admin user create`, setting a
// password, signing in, creating a key and copying it, copying a project
// id, using the key on the API, deploying the project and following the
// update to its end, exporting the site and following the export, making
// the bundle's link and downloading the bundle, revoking the key,
// signing out. It leaves screenshots of its pages, light and dark.
func TestDashboardBrowser(t *testing.T) {
	browserCtx, stop := browsertest.Start(t, context.Background())
	defer stop()
	data := t.TempDir()
	srv := startServe(t, data)
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, _ := newRepo(t, smallSite("Hello."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "docs.acme.test"))
	out := lectern(t, "admin", "--data-dir", data, "user", "create", "--org", org, "--email", "ada@acme.test", "--role", "owner", "--public-url", srv.url)
	link := regexp.MustCompile(`(?m)^(http://\S+/dashboard/welcome\?token=lsi_\S+)$`).FindStringSubmatch(out)
	if link == nil {
		t.Fatalf("no welcome link in:\n%s", out)
	}

	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{srv.url}})
	clipboard := tab.Run("grant the clipboard", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, tg, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: srv.url}); err != nil {
				return err
			}
		}
		return nil
	}))
	t.Logf("clipboard readable: %v", clipboard)
	scheme := func(s string) bool {
		return tab.Run("prefers-color-scheme: "+s, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia,
				emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
			return err
		}))
	}
	shoot := func(name string) {
		t.Helper()
		for _, s := range []string{"light", "dark"} {
			scheme(s)
			png, err := chromedp.Run(tab.Context(), chromedp.FullScreenshot(100))
			if err != nil {
				t.Errorf("screenshot %s: %v", name, err)
				continue
			}
			path := strings.TrimSuffix(browsertest.ScreenshotPath(t), ".png") + "-" + name + "-" + s + ".png"
			if err := os.WriteFile(path, png, 0o644); err != nil {
				t.Error(err)
			}
			t.Logf("screenshot: %s", filepath.Base(path))
		}
		scheme("light")
	}
	// submit runs js (which fills a form) and clicks the button with that
	// text, then waits for the page at path (a prefix when it ends in *).
	submit := func(step, js, button, path string) bool {
		t.Helper()
		click := fmt.Sprintf(`(() => { %s; const b = [...document.querySelectorAll("button, a")].find(e => e.textContent.trim() === %q);
			if (!b) return "no button"; setTimeout(() => b.click(), 0); return "ok"; })()`, js, button)
		if v, ok := tab.Eval(step, click); !ok || v != "ok" {
			t.Errorf("%s: %s", step, v)
			return false
		}
		deadline := time.Now().Add(browsertest.StepTimeout)
		for time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			v, err := tab.Try(`location.pathname + " " + document.readyState`, time.Second)
			at, done := strings.CutSuffix(v, " complete")
			if err == nil && done && (at == path || strings.HasSuffix(path, "*") && strings.HasPrefix(at, strings.TrimSuffix(path, "*"))) {
				tab.Check(step)
				return true
			}
		}
		v, _ := tab.Try(`location.pathname`, time.Second)
		t.Errorf("%s: at %s, want %s", step, v, path)
		return false
	}
	// byLabel is JS that sets the input labelled label to value.
	byLabel := func(label, value string) string {
		return fmt.Sprintf(`document.getElementById([...document.querySelectorAll("label")].find(l => l.textContent.trim() === %q).htmlFor).value = %q;`, label, value)
	}
	copied := func(step, selector string) string {
		t.Helper()
		tab.Eval(step, fmt.Sprintf(`(() => { const b = document.querySelector(%q); if (b.hidden) throw new Error("copy button hidden"); b.click(); return ""; })()`, selector))
		v, _ := tab.Eval(step, fmt.Sprintf(`new Promise(ok => setTimeout(() => ok(document.querySelector(%q).textContent), 300))`, selector))
		if v != "Copied" {
			t.Errorf("%s: the button says %q, want Copied", step, v)
		}
		if !clipboard {
			return ""
		}
		text, _ := tab.Eval(step, `navigator.clipboard.readText()`)
		return text
	}

	const pw = "a long enough password"
	if !tab.Open(link[1]) {
		return
	}
	if !submit("set the password", byLabel("New password", pw)+byLabel("Confirm password", pw), "Set password and sign in", "/dashboard/projects") {
		return
	}
	if !submit("sign out", "", "Sign out", "/dashboard/signin") {
		return
	}
	shoot("signin")
	if !submit("sign in", byLabel("Email", "Ada@Acme.test")+byLabel("Password", pw), "Sign in", "/dashboard/projects") {
		return
	}
	tab.Open(srv.url + "/dashboard/keys")
	if got := copied("copy the project id", `button[data-copy="`+prj+`"]`); clipboard && got != prj {
		t.Errorf("the clipboard holds %q, want the project id %s", got, prj)
	}
	if !submit("create a key", byLabel("Name", "GitHub Actions"), "Create key", "/dashboard/keys") {
		return
	}
	key, _ := tab.Eval("read the key", `document.getElementById("secret").value`)
	if ci, _ := tab.Eval("read the CI line", `document.getElementById("ci-line").value`); ci != "export LECTERN_API_KEY="+key {
		t.Errorf("CI line %q", ci)
	}
	if got := copied("copy the key", `button[data-copy-from="secret"]`); clipboard && got != key {
		t.Errorf("the clipboard holds %.8q…, want the key", got)
	}
	if s, _, _ := call(t, "GET", srv.url+"/v1/projects", key, nil); s != 200 {
		t.Fatalf("GET /v1/projects with the dashboard's key: %d, want 200", s)
	}
	// waitFor polls the JS expression js until it gives want.
	waitFor := func(step, js, want string, limit time.Duration) bool {
		t.Helper()
		deadline := time.Now().Add(limit)
		v := ""
		for time.Now().Before(deadline) {
			v, _ = tab.Try(js, time.Second)
			if v == want {
				tab.Check(step)
				return true
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("%s: %s gives %q, want %q", step, js, v, want)
		return false
	}

	// Deploy from the project's page, and follow the update (its part
	// reloads itself) until it ends.
	tab.Open(srv.url + "/dashboard/projects/" + prj)
	shoot("project")
	if !submit("deploy now", "", "Deploy now", "/dashboard/projects/"+prj+"/updates/*") {
		return
	}
	if !waitFor("the update ends", `document.querySelector("#update-live h2").textContent.trim() + (document.querySelector("#update-live").hasAttribute("data-live") ? " (live)" : "")`,
		"Status: success", 2*time.Minute) {
		v, _ := tab.Try(`document.querySelector("#update-live").textContent`, time.Second)
		t.Fatalf("the update page says: %s", v)
	}
	shoot("update")

	// Export the live site, follow the export, make the bundle's link and
	// download the bundle it names.
	tab.Open(srv.url + "/dashboard/exports/new?domain=docs.acme.test")
	if !submit("start an export", "", "Start export", "/dashboard/exports/exp_*") {
		return
	}
	if !waitFor("the export completes", `document.querySelector("#export-live .badge").textContent.trim() + " " + document.querySelector("#export-progress").value`,
		"completed 100", 2*time.Minute) {
		return
	}
	if pages, _ := tab.Eval("the export's pages", `document.getElementById("export-pages").textContent.trim()`); pages == "0" || pages == "" {
		t.Errorf("the finished export shows %q pages", pages)
	}
	if !submit("make the bundle's link", "", "Generate download link", "/dashboard/exports/exp_*") {
		return
	}
	shoot("bundle")
	bundleURL, _ := tab.Eval("read the bundle URL", `document.getElementById("bundle-url").value`)
	sum, _ := tab.Eval("read the sha256", `document.getElementById("bundle-sha256").textContent.trim()`)
	res, err := http.Get(bundleURL)
	if err != nil {
		t.Fatalf("download the bundle: %v", err)
	}
	bundle, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got := sha256.Sum256(bundle); res.StatusCode != 200 || hex.EncodeToString(got[:]) != sum {
		t.Errorf("the bundle at the dashboard's link: status %d, %d bytes, sha256 %x; the page says %s", res.StatusCode, len(bundle), got, sum)
	}

	// The other pages, as a reader sees them; on a phone, no page is
	// wider than the screen.
	// The server's own root page is among them.
	for _, page := range []string{"projects", "projects/new", "projects/" + prj + "/edit", "projects/" + prj + "/updates",
		"projects/" + prj + "/deployments", "projects/" + prj + "/access", "exports", "exports/new", "analytics?project=" + prj,
		"webhooks", "org", "org/account", "/"} {
		url := srv.url + "/dashboard/" + page
		if page == "/" {
			url, page = srv.url+"/", "root"
		}
		if !tab.Open(url) {
			continue
		}
		if v, _ := tab.Eval("title of "+page, `document.querySelector("h1") ? document.querySelector("h1").textContent : ""`); v == "" || strings.Contains(v, "Not found") {
			t.Errorf("%s has the heading %q", url, v)
		}
		shoot(strings.NewReplacer("/", "-", "?project="+prj, "", prj, "project").Replace(page))
		if tab.Run("a phone", chromedp.EmulateViewport(390, 844)) {
			if v, _ := tab.Eval("width of "+page+" on a phone", `String(document.documentElement.scrollWidth)`); v != "390" {
				wide, _ := tab.Eval("what is too wide", `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 4).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join(", ")`)
				t.Errorf("/dashboard/%s on a 390 px phone is %s px wide: %s", page, v, wide)
			}
			tab.Run("a desktop", chromedp.EmulateViewport(1280, 900))
		}
	}

	tab.Open(srv.url + "/dashboard/keys")
	if v, _ := tab.Eval("the key is not shown again", `document.body.innerHTML.includes(`+fmt.Sprintf("%q", key)+`) ? "shown" : ""`); v != "" {
		t.Error("the keys page shows the key again")
	}
	shoot("keys")
	if !submit("ask to revoke", "", "Revoke GitHub Actions", "/dashboard/keys/key_*") {
		return
	}
	if !submit("revoke", "", "Revoke key", "/dashboard/keys/"+keyIDFromPath(tab)+"/revoke") {
		return
	}
	if v, _ := tab.Eval("revoked notice", `document.querySelector("[role=status]").textContent`); !strings.Contains(v, "Revoked") {
		t.Errorf("after revoking: %q", v)
	}
	deadline := time.Now().Add(5 * time.Second) // the API's key cache lasts a second
	for {
		s, _, _ := call(t, "GET", srv.url+"/v1/projects", key, nil)
		if s == 401 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /v1/projects with the revoked key: %d, want 401", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !submit("sign out", "", "Sign out", "/dashboard/signin") {
		return
	}
	tab.Open(srv.url + "/dashboard/keys")
	if v, _ := tab.Eval("after sign-out", `location.pathname`); v != "/dashboard/signin" {
		t.Errorf("keys after sign-out lands on %s, want the sign-in page", v)
	}
	if logs := srv.logs.String(); strings.Contains(logs, key) || strings.Contains(logs, pw) || strings.Contains(logs, bundleURL) {
		t.Error("the server's log holds the key, the password or the bundle's signed link")
	}
}

// keyIDFromPath returns the key id of the revoke page the tab is on.
func keyIDFromPath(tab *browsertest.Tab) string {
	v, _ := tab.Try(`location.pathname`, time.Second)
	return strings.TrimSuffix(strings.TrimPrefix(v, "/dashboard/keys/"), "/revoke")
}
