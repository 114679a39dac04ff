package sites

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/prometheus/client_golang/prometheus"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/internal/browsertest"
	"lectern.dev/lectern/internal/sitebuild"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/store"
)

// TestBrowserCloudAnalytics: in headless Chromium (as an ordinary
// browser: headless ones are not counted), a reader opens two pages of a
// cloud site, searches, follows a result and says the page was not
// helpful, with a comment; the store, and the API's reports, then hold
// exactly those counts, by one visitor. No cookie or storage is used.
func TestBrowserCloudAnalytics(t *testing.T) {
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
	s := New(discardLog(), st, b)
	actx, stopAnalytics := context.WithCancel(context.Background())
	analyticsDone := make(chan struct{})
	go func() { defer close(analyticsDone); s.RunAnalytics(actx) }()
	defer func() { stopAnalytics(); <-analyticsDone }()
	srv := httptestServer(t, s)
	base := strings.Replace(srv, "127.0.0.1", "docs.localhost", 1)
	tab := browsertest.NewTab(t, browserCtx, browsertest.Options{Origins: []string{base}})
	tab.Run("an ordinary browser", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: browserUA})
		return err
	}))

	tab.Open(base + "/quickstart")
	tab.Open(base + "/development")
	if !tab.Run("search and follow a result", chromedp.KeyEvent("k", chromedp.KeyModifiers(2 /* Ctrl */)),
		chromedp.WaitVisible(chromedp.CSS("#lc-search-input")),
		chromedp.SendKeys(chromedp.CSS("#lc-search-input"), "reusable snippets"),
		chromedp.WaitVisible(chromedp.CSS(".lc-search-result a")),
		chromedp.Sleep(300*time.Millisecond), // the results of the whole query
		chromedp.Click(chromedp.CSS(".lc-search-result a"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(".lc-feedback"))) {
		return
	}
	landed, _ := tab.Eval("the result's page", `location.pathname`)
	if !tab.Run("vote", chromedp.Click(chromedp.CSS(`.lc-feedback-vote[data-helpful="false"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(".lc-feedback-comment")),
		chromedp.SendKeys(chromedp.CSS(".lc-feedback-comment"), "An example of a snippet with props, please."+kb.Tab)) {
		return
	}
	// The box with its comment, light and dark, at its size.
	tab.ElementShot(".lc-feedback", "feedback-light")
	tab.Eval("dark", `document.documentElement.setAttribute("data-theme", "dark"), "ok"`)
	tab.ElementShot(".lc-feedback", "feedback-dark")
	tab.Eval("light", `document.documentElement.setAttribute("data-theme", "light"), "ok"`)
	if !tab.Run("send", chromedp.Click(chromedp.CSS(".lc-feedback-send"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(".lc-feedback-status"))) {
		return
	}
	shot := browsertest.ScreenshotPath(t)
	tab.Screenshot()
	os.Rename(shot, strings.TrimSuffix(shot, ".png")+"-light.png")
	tab.Eval("dark", `document.documentElement.setAttribute("data-theme", "dark"), "ok"`)
	tab.Screenshot()
	if stored, _ := tab.Eval("storage", `String(document.cookie.length + localStorage.length + sessionStorage.length)`); stored != "0" {
		t.Errorf("the site stored %s cookies or items", stored)
	}
	tab.Check("analytics")

	// 3 page views, a search, a vote.
	deadline := time.Now().Add(10 * time.Second)
	for s.analytics.c.Accepted() < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stopAnalytics()
	<-analyticsDone
	if n := s.analytics.c.Accepted(); n != 5 {
		t.Fatalf("%d events accepted, want 5", n)
	}
	day := time.Now().UTC()
	from, to := day.Add(-24*time.Hour), day.Add(24*time.Hour)
	visits, err := st.AnalyticsDaily(ctx, p.ID, lectern.AnalyticsVisit, from, to)
	if err != nil || len(visits) != 1 || visits[0].N != 3 || visits[0].Visitors != 1 {
		t.Errorf("visits %+v, %v: want 3 views by 1 visitor", visits, err)
	}
	searches, err := st.AnalyticsTop(ctx, p.ID, lectern.AnalyticsSearch, from, to, store.AnalyticsTopFilter{})
	// The query is the one whose results were followed: the whole one, or,
	// on a slow machine, what was typed when the click came.
	if err != nil || len(searches) != 1 || !strings.HasPrefix("reusable snippets", searches[0].Key) || len(searches[0].Key) < len("reusable") ||
		searches[0].N != 1 || searches[0].Clicks != 1 {
		t.Errorf("searches %+v, %v", searches, err)
	}
	votes, err := st.AnalyticsTop(ctx, p.ID, lectern.AnalyticsFeedback, from, to, store.AnalyticsTopFilter{})
	if err != nil || len(votes) != 1 || votes[0].Key != landed || votes[0].No != 1 || votes[0].Yes != 0 {
		t.Errorf("votes %+v, %v (page %s)", votes, err, landed)
	}
	comments, err := st.ListAnalyticsComments(ctx, p.ID, time.Time{}, time.Time{}, store.Page{})
	if err != nil || len(comments) != 1 || comments[0].Comment != "An example of a snippet with props, please." {
		t.Errorf("comments %+v, %v", comments, err)
	}

	// The API reports the same.
	key := lectern.NewAPIKey()
	if err := st.CreateAPIKey(ctx, &lectern.APIKey{OrgID: p.OrgID, Name: "t", Hint: lectern.APIKeyHint(key), Hash: lectern.HashAPIKey(key)}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	api := httpapi.NewHandler(discardLog(), st, nil, nil, nil, nil, reg, reg, httpapi.Config{})
	get := func(report string) string {
		r := httptest.NewRequest("GET", "/v1/analytics/"+p.ID+"/"+report, nil)
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		api.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", report, w.Code, w.Body)
		}
		return w.Body.String()
	}
	if v := get("views"); !strings.Contains(v, `"totals":{"views":3,"visitors":1}`) {
		t.Errorf("views: %s", v)
	}
	if v := get("searches"); !strings.Contains(v, `"totals":{"searches":1,"clicks":1,"noResults":0,"clickThrough":1}`) {
		t.Errorf("searches: %s", v)
	}
	if v := get("feedback"); !strings.Contains(v, `"totals":{"helpful":0,"notHelpful":1}`) || !strings.Contains(v, "snippet with props") {
		t.Errorf("feedback: %s", v)
	}
}

// httptestServer serves h on loopback until the test ends.
func httptestServer(t *testing.T, h *Server) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
