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
	"regexp"
	"runtime/debug"
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
			printDemo(out, base, p.ID, `"$(cat `+shellQuote(absPath(keyPath))+`)"`, dataDir)
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
	printDemo(out, base, p.ID, shellQuote(secret), dataDir)
	return nil
}

// printDemo prints the live site's URL and commands to paste: they export
// every variable the demo's pages use in their commands (PROJECT_ID and
// the API's; TestServeDemoCommandsWork checks), and run this program as the
// user can run it again (lecternCommand). key is the API key as a shell
// word: the key itself, or a command substitution reading its file.
func printDemo(out io.Writer, base, projectID, key, dataDir string) {
	site := base
	if u, err := urlWithHost(base, demoDomain); err == nil {
		site = u
	}
	lectern, where := lecternCommand()
	if where != "" {
		// go run builds from the source folder it is run in, so its
		// commands work there only.
		where = "Run them in " + where + ": " + lectern + " builds Lectern from the source there.\n"
	}
	fmt.Fprintf(out, `
Live site:  %s/
            (or: curl -H 'Host: %s' %s/)

Try the API: paste these lines into a shell; they set the variables the demo's pages use.
%s
    export LECTERN_API_URL=%s
    export LECTERN_API_KEY=%s
    export PROJECT_ID=%s
    curl -s -X POST -H "Authorization: Bearer $LECTERN_API_KEY" "$LECTERN_API_URL/v1/project/update/$PROJECT_ID"; echo
    %s update "$PROJECT_ID" --wait
    %s export --domain %s --wait --out docs.tar.gz

The site's source is the git repository %s: commit a change there and
run the update line again to see it go live.

`, site, demoDomain, base, where, shellQuote(base), key, shellQuote(projectID), lectern, lectern, demoDomain,
		absPath(filepath.Join(dataDir, "demo-docs")))
}

// lecternCommand returns how a shell runs this program again: "lectern"
// when that finds this very binary on PATH, else the binary's own path;
// but for a binary that the go command built for one run (go run), which
// is deleted or unreachable once it ends, the go run command that builds
// it again, and the folder that command must run in.
func lecternCommand() (cmd, where string) {
	exe, err := os.Executable()
	if err != nil {
		return "lectern", ""
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	if goRunBinary(exe) {
		return goRunCommand()
	}
	if p, err := exec.LookPath("lectern"); err == nil {
		a, errA := os.Stat(p)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "lectern", ""
		}
	}
	return shellQuote(exe), ""
}

var (
	// goWorkDir is the go command's temporary work folder
	// ($GOTMPDIR/go-build1234567), where go run builds its binary
	// (b001/exe/lectern) and which it removes when the program ends.
	goWorkDir = regexp.MustCompile(`^go-build[0-9]+$`)
	// goCacheExe is the build cache's folder of one cached executable
	// (GOCACHE/ab/ab12...ef-d/lectern), where go run keeps its binary
	// since Go 1.24.
	goCacheExe = regexp.MustCompile(`^[0-9a-f]{64}-d$`)
)

// goRunBinary reports whether exe is a binary the go command built for one
// run: under its temporary work folder, or among the build cache's
// executables.
func goRunBinary(exe string) bool {
	dir := filepath.Dir(exe)
	if name := filepath.Base(dir); goCacheExe.MatchString(name) && filepath.Base(filepath.Dir(dir)) == name[:2] {
		return true
	}
	for d := dir; ; d = filepath.Dir(d) {
		if goWorkDir.MatchString(filepath.Base(d)) {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// goRunCommand returns the go run command that builds and runs the lectern
// command again, and the folder it works in: the current folder, naming
// cmd/lectern relative to it when it is inside Lectern's module; else the
// module at this binary's version when it has one; else ./cmd/lectern as
// run from the module's folder.
func goRunCommand() (cmd, where string) {
	module, version := "lectern.dev/lectern", ""
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		module, version = bi.Main.Path, bi.Main.Version
	}
	if cwd, err := os.Getwd(); err == nil {
		if root := moduleRoot(cwd, module); root != "" {
			if rel, err := filepath.Rel(cwd, filepath.Join(root, "cmd", "lectern")); err == nil {
				rel = filepath.ToSlash(rel)
				if rel != "." && !strings.HasPrefix(rel, "../") {
					rel = "./" + rel
				}
				return "go run " + shellQuote(rel), cwd
			}
		}
	}
	if version != "" && version != "(devel)" {
		return "go run " + shellQuote(module+"/cmd/lectern@"+version), ""
	}
	return "go run ./cmd/lectern", "Lectern's source folder"
}

// moduleRoot returns the folder at or above dir whose go.mod declares
// module, or "".
func moduleRoot(dir, module string) string {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for line := range strings.Lines(string(data)) {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" && strings.Trim(f[1], `"`) == module {
					return dir
				}
			}
			return "" // the folder of another module: not Lectern's source
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// shellQuote returns s as one word of a POSIX shell: as is when it holds
// only characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// absPath returns the absolute form of path, or path when it has none.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
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
