package cli_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestServeEmbedHosts: with --embed-hosts, a live page shows the iframes
// of the listed hosts, as players, and its policy lets exactly them be
// framed; an iframe of another host is a poster card linking to the video.
func TestServeEmbedHosts(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServe(t, data, "--embed-hosts", "www.youtube.com, player.vimeo.com")
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, _ := newRepo(t, smallSite(`<iframe src="https://www.youtube.com/embed/4KzFe50RQkQ" title="Intro" allowFullScreen></iframe>`+"\n\n"+
		`<iframe src="https://www.loom.com/embed/0281766fa2d04bb788eaf19e65135184"></iframe>`))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "docs.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	if st := waitUpdate(t, srv.url, key, trigger(t, srv.url, key, prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	req, _ := http.NewRequest("GET", srv.url+"/quickstart", nil)
	req.Host = "docs.acme.test"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "; frame-src 'self' https://www.youtube.com https://player.vimeo.com; ") {
		t.Errorf("policy: %s", csp)
	}
	_, body := page(t, srv.url, "docs.acme.test", "/quickstart")
	for _, want := range []string{
		`<div class="lc-embed"><iframe src="https://www.youtube.com/embed/4KzFe50RQkQ" title="Intro" sandbox="allow-scripts allow-same-origin allow-presentation allow-popups"`,
		`<a class="lc-media-card" href="https://www.loom.com/share/0281766fa2d04bb788eaf19e65135184" target="_blank" rel="noopener noreferrer">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if n := strings.Count(body, "<iframe"); n != 1 {
		t.Errorf("%d iframes, want 1", n)
	}
}
