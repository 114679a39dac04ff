package cli

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/client"
	"lectern.dev/lectern/store"
)

// demoSite is the example docs site that serve --demo deploys.
//
//go:embed all:demosite
var demoSite embed.FS

// demoDomain is the demo project's domain: browsers and curl resolve every
// *.localhost name to the loopback address, so the live site opens as is.
const demoDomain = "docs.localhost"

// demoKeyFile is the file in the data folder holding the demo API key,
// readable by its owner only: the store keeps only the key's hash.
const demoKeyFile = "demo-api-key"

// demo seeds an empty store with an enterprise organization, a project
// whose repository is the embedded example site (written to a local git
// repository in the data folder), and an API key; triggers the first
// update through the API at base; waits for the site to go live; and
// prints how to open it and call the API. On a store that already has
// organizations it seeds nothing and says so.
func demo(ctx context.Context, st store.Store, dataDir, base string, out io.Writer) error {
	orgs, err := st.ListOrgs(ctx)
	if err != nil {
		return err
	}
	keyPath := filepath.Join(dataDir, demoKeyFile)
	if len(orgs) > 0 {
		if p, err := st.GetProjectByDomain(ctx, demoDomain); err == nil {
			fmt.Fprintf(out, "\nThe demo is already set up (project %s); its API key is in %s.\n", p.ID, keyPath)
			printDemo(out, base, p.ID, "$(cat "+keyPath+")")
			return nil
		}
		fmt.Fprintln(out, "\n--demo seeds an empty store only; this one already has organizations. Use another --data-dir for the demo.")
		return nil
	}
	repo, err := writeDemoRepo(ctx, filepath.Join(dataDir, "demo-docs"))
	if err != nil {
		return fmt.Errorf("demo repository: %w", err)
	}
	org := &lectern.Organization{Name: "Demo", Plan: lectern.PlanEnterprise}
	if err := st.CreateOrg(ctx, org); err != nil {
		return err
	}
	p := &lectern.Project{OrgID: org.ID, Name: "Demo docs", RepoURL: repo, Branch: "main", DocsRoot: "/",
		Domains: []string{demoDomain}, DeploymentType: lectern.DeploymentCloud}
	if err := st.CreateProject(ctx, p); err != nil {
		return err
	}
	secret := lectern.NewAPIKey()
	k := &lectern.APIKey{OrgID: org.ID, Name: "demo", Hint: lectern.APIKeyHint(secret), Hash: lectern.HashAPIKey(secret)}
	if err := st.CreateAPIKey(ctx, k); err != nil {
		return err
	}
	if err := os.WriteFile(keyPath, []byte(secret+"\n"), 0o600); err != nil {
		return err
	}
	upd, err := demoUpdate(ctx, base, secret, p.ID)
	if err != nil {
		return fmt.Errorf("first update: %w", err)
	}
	if upd.Status != client.UpdateSuccess {
		return fmt.Errorf("the first update ended %s: %s; see GET %s/v1/project/update-status/%s",
			upd.Status, strings.TrimSpace(upd.Summary), base, upd.StatusID)
	}
	fmt.Fprintf(out, "\nThe Lectern demo is ready. Organization %s (enterprise), project %s.\n", org.ID, p.ID)
	fmt.Fprintf(out, "Its API key, shown once here, is also in %s:\n\n    %s\n", keyPath, secret)
	printDemo(out, base, p.ID, secret)
	return nil
}

// printDemo prints the live site's URL and commands to paste.
func printDemo(out io.Writer, base, projectID, key string) {
	site := base
	if u, err := urlWithHost(base, demoDomain); err == nil {
		site = u
	}
	fmt.Fprintf(out, `
Live site:  %s/
            (or: curl -H 'Host: %s' %s/)

Try the API:
    export LECTERN_API_URL=%s LECTERN_API_KEY=%s
    curl -s -X POST -H "Authorization: Bearer $LECTERN_API_KEY" $LECTERN_API_URL/v1/project/update/%s
    lectern update %s --wait
    lectern export --domain %s --wait --out docs.tar.gz

The site's source is a git repository in the data folder (demo-docs): commit a change and run
lectern update again to see it go live.

`, site, demoDomain, base, base, key, projectID, projectID, demoDomain)
}

// loopbackURL is the http URL of a listening address, with the loopback
// address for a wildcard one (":8080", "0.0.0.0:8080").
func loopbackURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// urlWithHost returns base with its host name replaced by host (the port
// kept).
func urlWithHost(base, host string) (string, error) {
	rest, ok := strings.CutPrefix(base, "http://")
	if !ok {
		return "", errors.New("not http")
	}
	_, port, err := net.SplitHostPort(strings.TrimSuffix(rest, "/"))
	if err != nil {
		return "", err
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// writeDemoRepo writes the embedded site into a new git repository at dir
// (replacing what a failed earlier attempt left) and returns its path.
func writeDemoRepo(ctx context.Context, dir string) (string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	site, err := fs.Sub(demoSite, "demosite")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(dir, site); err != nil {
		return "", err
	}
	git := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=Lectern demo", "-c", "user.email=demo@lectern.invalid",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "Demo docs"}, {"branch", "-M", "main"}} {
		if err := git(args...); err != nil {
			return "", err
		}
	}
	return filepath.Abs(dir)
}

// demoUpdate triggers an update of the project through the API and waits
// up to 5 minutes for it to end, returning its final status.
func demoUpdate(ctx context.Context, base, key, projectID string) (*client.UpdateStatus, error) {
	c, err := client.New(base, key, client.WithUserAgent("lectern/"+Version), client.WithPollInterval(200*time.Millisecond))
	if err != nil {
		return nil, err
	}
	acc, err := c.TriggerUpdate(ctx, projectID)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	st, err := c.WaitUpdate(wctx, acc.StatusID, nil)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("update %s did not finish within 5 minutes", acc.StatusID)
	}
	return st, err
}
