package cli_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lectern.dev/lectern/internal/proctest"
)

// The tests of this file attack a real lectern serve (the built binary,
// rendering in child processes) with repositories an organization
// controls, and check that each attack fails its own update with a
// summary that says what happened, publishes nothing from outside the
// repository, and leaves another organization's site and the API
// answering, with the server's memory bounded.

// yamlBombSite is a site whose OpenAPI file's nested aliases stand for
// 10^9 values.
func yamlBombSite() map[string]string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\ninfo: {title: Bomb, version: '1'}\nx-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", ")
		fmt.Fprintf(&b, "x-a%d: &a%d [%s]\n", i, i, refs)
	}
	b.WriteString("paths:\n  /boom:\n    get:\n      summary: Boom\n      x-boom: *a9\n      responses: {'200': {description: ok}}\n")
	return map[string]string{
		"docs.json":    `{"name": "Bomb", "navigation": {"pages": ["index"]}}`,
		"index.mdx":    "---\ntitle: Bomb\nopenapi: GET /boom\n---\n",
		"openapi.yaml": b.String(),
	}
}

// snippetBombSite is a page using a snippet that uses the next ten
// times, nine levels deep.
func snippetBombSite() map[string]string {
	files := map[string]string{
		"docs.json":       `{"name": "Bomb", "navigation": {"pages": ["index"]}}`,
		"index.mdx":       "---\ntitle: Bomb\n---\nimport S0 from '/snippets/s0.mdx';\n\n<S0 />\n",
		"snippets/s9.mdx": "boom ",
	}
	for i := range 9 {
		files[fmt.Sprintf("snippets/s%d.mdx", i)] = fmt.Sprintf("import S%d from '/snippets/s%d.mdx';\n\n%s", i+1, i+1,
			strings.Repeat(fmt.Sprintf("<S%d />\n", i+1), 10))
	}
	return files
}

// tenant is an organization with a project and an API key.
type tenant struct{ org, project, key, domain string }

func newTenant(t *testing.T, bin, data, name, repo, domain string, extra ...string) tenant {
	t.Helper()
	admin := func(args ...string) string {
		t.Helper()
		out, err := runBin(bin, append([]string{"admin", "--data-dir", data}, args...)...)
		if err != nil {
			t.Fatalf("lectern admin %v: %v\n%s", args, err, out)
		}
		return lastLine(out)
	}
	org := admin("org", "create", "--name", name, "--plan", "enterprise")
	prj := admin(append([]string{"project", "create", "--org", org, "--name", name, "--repo", repo, "--domain", domain}, extra...)...)
	key := admin("key", "create", "--org", org, "--name", "ci")
	return tenant{org: org, project: prj, key: key, domain: domain}
}

func runBin(bin string, args ...string) (string, error) {
	out, err := exec.Command(bin, args...).CombinedOutput()
	return string(out), err
}

// peakRSS returns the peak resident memory of process pid, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// slowSite is a site of n empty pages, for a server whose renders are
// slowed per page (--update-page-delay).
func slowSite(n int) map[string]string {
	files := map[string]string{}
	var nav []string
	for i := range n {
		files[fmt.Sprintf("p%02d.mdx", i)] = "---\ntitle: P\n---\nx\n"
		nav = append(nav, fmt.Sprintf("%q", fmt.Sprintf("p%02d", i)))
	}
	files["docs.json"] = `{"name": "Slow", "navigation": {"pages": [` + strings.Join(nav, ",") + `]}}`
	return files
}

// assertAnswers checks that the good tenant's site and the API answer.
func assertAnswers(t *testing.T, base string, good tenant) {
	t.Helper()
	if code, body := page(t, base, good.domain, "/quickstart"); code != 200 || !strings.Contains(body, "acme</strong> CLI") {
		t.Fatalf("the other organization's site: %d %.200s", code, body)
	}
	if code, _, _ := call(t, "GET", base+"/readyz", "", nil); code != 200 {
		t.Fatalf("/readyz: %d", code)
	}
}

// failsWith triggers an update of bad and checks it fails with a summary
// holding every one of want, while good's site keeps answering.
func failsWith(t *testing.T, base string, bad, good tenant, want ...string) map[string]any {
	t.Helper()
	id := trigger(t, base, bad.key, bad.project)
	stop := make(chan struct{})
	during := make(chan string, 1)
	go func() { // the other site answers while the attack runs
		defer close(during)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if code, _ := page(t, base, good.domain, "/quickstart"); code != 200 {
				during <- fmt.Sprintf("the other site answered %d during the attack", code)
				return
			}
		}
	}()
	st := waitUpdate(t, base, bad.key, id)
	close(stop)
	if msg := <-during; msg != "" {
		t.Error(msg)
	}
	sum, _ := st["summary"].(string)
	if st["status"] != "failure" {
		t.Fatalf("update %v, want a failure", st)
	}
	for _, w := range want {
		if !strings.Contains(sum, w) {
			t.Errorf("summary %q does not say %q", sum, w)
		}
	}
	if strings.Contains(sum, "object store") || strings.Contains(sum, "attempts") {
		t.Errorf("summary %q reports a wrong cause or retried", sum)
	}
	assertAnswers(t, base, good)
	return st
}

func TestContainUntrustedRepositories(t *testing.T) {
	t.Parallel()
	bin := lecternBinary(t)
	data := t.TempDir()
	addr := freeAddr(t)
	srv := startProc(t, bin, addr, data, "--build-max-file-size", "1MiB", "--build-max-pages", "1000")
	base := "http://" + addr

	goodRepo, _ := newRepo(t, smallSite("Install the **acme** CLI."))
	good := newTenant(t, bin, data, "Acme", goodRepo, "docs.acme.test")
	if st := waitUpdate(t, base, good.key, trigger(t, base, good.key, good.project)); st["status"] != "success" {
		t.Fatalf("good site: %v", st)
	}

	t.Run("docs root links out of the repository", func(t *testing.T) {
		secret := t.TempDir()
		os.WriteFile(filepath.Join(secret, "docs.json"), []byte(`{"name": "Secret", "navigation": {"pages": ["index"]}}`), 0o644)
		os.WriteFile(filepath.Join(secret, "index.mdx"), []byte("---\ntitle: Secret\n---\nSERVER-SECRET-CONTENT\n"), 0o644)
		repo, _ := newRepo(t, map[string]string{"README.md": "docs"})
		for name, target := range map[string]string{"docs": secret, "other": goodRepo} {
			if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
				t.Fatal(err)
			}
		}
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", "links")
		for i, root := range []string{"docs", "other"} {
			bad := newTenant(t, bin, data, "Evil"+root, repo, fmt.Sprintf("evil%d.test", i), "--docs-root", root)
			failsWith(t, base, bad, good, "symbolic link", "outside")
			if code, body := page(t, base, bad.domain, "/"); code == 200 || strings.Contains(body, "SERVER-SECRET") || strings.Contains(body, "acme") {
				t.Fatalf("published through a link: %d %.200s", code, body)
			}
		}
	})

	t.Run("links inside the repository", func(t *testing.T) {
		repo, _ := newRepo(t, map[string]string{
			"content/docs.json":  `{"name": "Links", "navigation": {"pages": ["index"]}}`,
			"content/index.mdx":  "---\ntitle: Home\n---\nReal page.\n",
			"content/extra.mdx":  "---\ntitle: Extra\n---\nExtra.\n",
			"content/img/a.txt":  "asset",
			"content/img/.keep":  "",
			"content/other/b.md": "b",
			"content/.cache/x":   "not part of the docs",
		})
		os.Symlink("extra.mdx", filepath.Join(repo, "content", "alias.mdx"))
		os.Symlink("img", filepath.Join(repo, "content", "pictures"))
		os.Symlink("/etc/passwd", filepath.Join(repo, "content", "passwd.txt"))
		os.Symlink("content", filepath.Join(repo, "site"))
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", "links")
		tn := newTenant(t, bin, data, "Links", repo, "links.test", "--docs-root", "site")
		st := waitUpdate(t, base, tn.key, trigger(t, base, tn.key, tn.project))
		if st["status"] != "success" {
			t.Fatalf("a repository with links inside: %v", st)
		}
		logs := fmt.Sprint(st["logs"])
		for _, name := range []string{"alias.mdx", "pictures", "passwd.txt"} {
			if !strings.Contains(logs, name) || !strings.Contains(logs, "symbolic link not followed") {
				t.Errorf("logs do not name the link %s: %s", name, logs)
			}
		}
		if code, _ := page(t, base, tn.domain, "/passwd.txt"); code != 404 {
			t.Errorf("/passwd.txt: %d, want 404", code)
		}
		if code, body := page(t, base, tn.domain, "/"); code != 200 || !strings.Contains(body, "Real page.") {
			t.Errorf("home: %d %.200s", code, body)
		}
		// The source snapshot holds what the render read: no links, no
		// dot-files or dot-folders.
		names := sourceSnapshot(t, data, tn.project)
		if !slices.Contains(names, "index.mdx") || !slices.Contains(names, "img/a.txt") {
			t.Errorf("source snapshot %v lacks the docs", names)
		}
		for _, n := range names {
			if strings.HasPrefix(n, ".") || strings.Contains(n, "/.") || strings.Contains(n, "passwd") || strings.HasPrefix(n, "alias") {
				t.Errorf("source snapshot holds %s: %v", n, names)
			}
		}
	})

	t.Run("budgets", func(t *testing.T) {
		many := map[string]string{}
		var nav []string
		for i := range 1200 {
			many[fmt.Sprintf("p%04d.mdx", i)] = "---\ntitle: P\n---\nx\n"
			nav = append(nav, fmt.Sprintf("%q", fmt.Sprintf("p%04d", i)))
		}
		many["docs.json"] = `{"name": "Many", "navigation": {"pages": [` + strings.Join(nav, ",") + `]}}`
		big := smallSite("Big file.")
		// A published type (an archive): a file the site does not publish
		// is never read, so its size does not matter.
		big["downloads/big.zip"] = strings.Repeat("0123456789abcdef", 128<<10) // 2 MiB
		for _, c := range []struct {
			name  string
			files map[string]string
			want  []string
		}{
			{"yaml", yamlBombSite(), []string{"openapi.yaml", "max-yaml-values", "--build-max-yaml-values"}},
			{"snippets", snippetBombSite(), []string{"index.mdx", "max-expansions", "--build-max-expansions"}},
			{"file", big, []string{"downloads/big.zip", "max-file-size", "1 MiB"}},
			{"pages", many, []string{"docs.json", "1200 pages", "max-pages (1000)"}},
		} {
			repo, _ := newRepo(t, c.files)
			bad := newTenant(t, bin, data, "Bomb "+c.name, repo, c.name+".bomb.test")
			start := time.Now()
			failsWith(t, base, bad, good, c.want...)
			t.Logf("%s: failed in %s", c.name, time.Since(start).Round(time.Millisecond))
		}
	})

	t.Run("messages quoting the repository are bounded", func(t *testing.T) {
		long := strings.Repeat("&", 40<<10)
		var body strings.Builder
		for i := range 20 {
			fmt.Fprintf(&body, "[link %d](/%s%d)\n\n", i, long, i)
		}
		warns := smallSite("Many long links.")
		warns["index.mdx"] = "---\ntitle: Home\n---\n" + body.String()
		repo, _ := newRepo(t, warns)
		tn := newTenant(t, bin, data, "Long links", repo, "long-links.test")
		st := waitUpdate(t, base, tn.key, trigger(t, base, tn.key, tn.project))
		if st["status"] != "success" {
			t.Fatalf("a page of long broken links: %v", st)
		}
		logs, _ := st["logs"].([]any)
		for _, l := range logs {
			if s, _ := l.(string); len(s) > 3<<10 {
				t.Errorf("a log line of %d bytes: %.100s", len(s), s)
			}
		}
		if len(logs) < 20 {
			t.Errorf("%d log lines, want the broken links named", len(logs))
		}

		missing := smallSite("x")
		missing["docs.json"] = `{"name": "Missing", "navigation": {"pages": ["index", "` + strings.Repeat("p", 500<<10) + `"]}}`
		repo, _ = newRepo(t, missing)
		bad := newTenant(t, bin, data, "Long name", repo, "long-name.test")
		st = failsWith(t, base, bad, good, "docs.json: navigation page")
		if sum, _ := st["summary"].(string); len(sum) > 5<<10 {
			t.Errorf("a summary of %d bytes", len(sum))
		}
	})

	t.Run("real docs fit the default limits", func(t *testing.T) {
		corpus, _ := filepath.Abs("../../shared/corpus/pipecat-docs")
		if _, err := os.Stat(corpus); err != nil {
			t.Skipf("the pipecat corpus is not beside the repository: %v", err)
		}
		tn := newTenant(t, bin, data, "Pipecat", corpusRepo(t, corpus), "pipecat.test")
		st := waitUpdate(t, base, tn.key, trigger(t, base, tn.key, tn.project))
		if st["status"] != "success" {
			t.Fatalf("pipecat: %v", st)
		}
		_, job, _ := call(t, "POST", base+"/v1/static-export/jobs", tn.key, map[string]any{"domain": tn.domain})
		if final := pollExport(t, base, tn.key, job["jobId"].(string), false); final["status"] != "completed" {
			t.Fatalf("pipecat export: %v", final)
		}
	})

	if rss := peakRSS(t, srv.cmd.Process.Pid); rss > 1<<30 {
		t.Errorf("the server's peak RSS is %d MiB, over 1 GiB", rss>>20)
	} else {
		t.Logf("the server's peak RSS: %d MiB", rss>>20)
	}
}

// TestContainMemoryTimeAndStop checks the supervisor's limits: a render
// that needs more memory than --build-memory or more time than
// --build-timeout fails naming the limit, and SIGTERM stops a render in
// progress within the shutdown timeout.
func TestContainMemoryTimeAndStop(t *testing.T) {
	t.Parallel()
	bin := lecternBinary(t)
	data := t.TempDir()
	addr := freeAddr(t)
	srv := startProc(t, bin, addr, data, "--build-max-yaml-values", "2000000000", "--build-memory", "256MiB",
		"--build-timeout", "4s")
	base := "http://" + addr
	goodRepo, _ := newRepo(t, smallSite("Install the **acme** CLI."))
	good := newTenant(t, bin, data, "Acme", goodRepo, "docs.acme.test")
	if st := waitUpdate(t, base, good.key, trigger(t, base, good.key, good.project)); st["status"] != "success" {
		t.Fatalf("good site: %v", st)
	}

	repo, _ := newRepo(t, yamlBombSite())
	bad := newTenant(t, bin, data, "Bomb", repo, "bomb.test")
	failsWith(t, base, bad, good, "memory", "256 MiB", "--build-memory")
	if rss := peakRSS(t, srv.cmd.Process.Pid); rss > 1<<30 {
		t.Errorf("the server's peak RSS is %d MiB, over 1 GiB", rss>>20)
	}
	srv.cmd.Process.Kill()
	<-srv.exited

	// A slow render: 40 pages at 200 ms each, against a 4 s limit.
	slowRepo, _ := newRepo(t, slowSite(40))
	srv = startProc(t, bin, addr, data, "--build-timeout", "4s", "--update-page-delay", "200ms", "--shutdown-timeout", "1s")
	tn := newTenant(t, bin, data, "Slow", slowRepo, "slow.test")
	failsWith(t, base, tn, good, "longer than 4s", "--build-timeout")

	// SIGTERM during a render: the render's process ends with the server,
	// within the shutdown timeout, and the update goes back to the queue.
	trigger(t, base, tn.key, tn.project)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(fmt.Sprint(proctest.Children(srv.cmd.Process.Pid)), "internal-build") {
		if time.Now().After(deadline) {
			t.Fatal("no render process started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	kids := proctest.Children(srv.cmd.Process.Pid)
	if !strings.Contains(fmt.Sprint(kids), "internal-build") {
		t.Fatalf("children %v, want the render", kids)
	}
	start := time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-srv.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop within 10s of SIGTERM")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %s with --shutdown-timeout 1s", took)
	}
	time.Sleep(100 * time.Millisecond)
	for pid, cmd := range kids {
		if proctest.Alive(pid) {
			t.Errorf("the render %d (%s) outlived the server", pid, cmd)
		}
	}
}

// sourceSnapshot lists the files of the source snapshot of project's
// deployment in the data folder's blobs.
func sourceSnapshot(t *testing.T, data, project string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "source.json" || !strings.Contains(p, project) {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Files map[string]struct {
				Hash string `json:"hash"`
			} `json:"files"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for name, f := range list.Files {
			// Each file is stored by its content beside the list.
			if _, err := os.Stat(filepath.Join(data, "blobs", "sites", project, "sources", f.Hash)); err != nil {
				t.Errorf("source %s is listed but not stored: %v", name, err)
			}
			names = append(names, name)
		}
		return nil
	})
	if names == nil {
		t.Fatalf("no source snapshot of %s under %s", project, data)
	}
	return names
}
