package sites

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/store"
)

// TestBrowserCloudAssistant: the starter docs, built as an update builds
// a cloud project's site and served by the live sites' server, in
// headless Chromium: Cmd/Ctrl+I opens the assistant, whose answer streams
// in with its sources (links into the site); the reader rates it, and the
// rating is kept. No console error, CSP violation or request to another
// origin (internal/browsertest). Screenshots in light and dark mode.
func TestBrowserCloudAssistant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	browserCtx, closeBrowser := browsertest.Start(t, ctx)
	defer closeBrowser()
	src := "../../shared/corpus/mintlify-starter"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Fatalf("corpus mintlify-starter is not readable: %v", err)
	}
	cloud := features.Live(lectern.DeploymentCloud)
	files := sitebuild.Files(t, os.DirFS(src), render.Options{Features: &cloud})
	st, b := openStore(t), blobtest.Folder(t)
	p := newProject(t, st, "docs.localhost")
	publish(t, st, b, p.ID, files)
	srv := httptest.NewServer(New(discardLog(), st, b))
	defer srv.Close()
	base := strings.Replace(srv.URL, "127.0.0.1", "docs.localhost", 1)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})

	tab.Open(base + "/quickstart")
	if !tab.Run("Ctrl+I and ask", chromedp.KeyEvent("i", chromedp.KeyModifiers(2 /* Ctrl */)),
		chromedp.WaitVisible(chromedp.CSS("#lc-assistant")),
		chromedp.SendKeys(chromedp.CSS(".lc-assistant-input"), "How do I install the Mintlify CLI?"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(".lc-assistant-answer:not(.lc-assistant-pending) .lc-assistant-rate"))) {
		return
	}
	got, _ := tab.Eval("answer", `JSON.stringify({text: document.querySelector(".lc-assistant-answer .lc-assistant-text").textContent,
		links: Array.from(document.querySelectorAll(".lc-assistant-sources a")).map(a => a.href)})`)
	var v struct {
		Text  string
		Links []string
	}
	json.Unmarshal([]byte(got), &v)
	if !strings.Contains(v.Text, "npm i -g mint") || len(v.Links) == 0 || !strings.HasPrefix(v.Links[0], base+"/") {
		t.Errorf("answer: %s", got)
	}
	shot := browsertest.ScreenshotPath(t)
	tab.Screenshot()
	os.Rename(shot, strings.TrimSuffix(shot, ".png")+"-light.png")
	tab.Eval("dark", `document.documentElement.setAttribute("data-theme", "dark"), "ok"`)
	tab.Screenshot()
	// On a phone, the panel fits the screen.
	if tab.Run("a phone", chromedp.EmulateViewport(390, 844)) {
		tab.ElementShot("#lc-assistant", "phone-dark")
		right, _ := tab.Eval("panel's right edge", `String(Math.round(document.getElementById("lc-assistant").getBoundingClientRect().right))`)
		if px, err := strconv.Atoi(right); err != nil || px > 390 {
			t.Errorf("the panel ends at %spx on a 390px screen", right)
		}
		tab.Run("a desktop", chromedp.EmulateViewport(1280, 900))
	}

	if !tab.Run("rate", chromedp.Click(chromedp.CSS(".lc-assistant-rate"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(".lc-assistant-feedback:not(:has(button))"))) {
		return
	}
	if thanks, _ := tab.Eval("thanks", `document.querySelector(".lc-assistant-feedback").textContent`); !strings.Contains(thanks, "Thanks") {
		t.Errorf("after rating: %q", thanks)
	}
	ms, err := st.ListAssistantMessages(ctx, p.ID, store.AssistantFilter{}, store.Page{})
	if err != nil || len(ms) != 1 || ms[0].Helpful == nil || !*ms[0].Helpful || ms[0].Domain != "docs.localhost" {
		t.Errorf("recorded %+v, %v", ms, err)
	}
	tab.Check("assistant")
}
