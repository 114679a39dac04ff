package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// projectUpdateCmd is lectern admin project update: the operator's
// PATCH, which may also set a repository on the server's disk, its
// token, and custom scripts.
func projectUpdateCmd(with withStore, e *env, keyOf func() (*secrets.Key, error)) *cobra.Command {
	var name, repo, branch, docsRoot, depType, tokenFile, knownHosts string
	var domains []string
	var customScripts bool
	var hf hostFlags
	cmd := &cobra.Command{Use: "update PROJECT_ID", Short: "Change a project's settings (only those given)", Args: cobra.ExactArgs(1),
		Long: `Change the settings of a project that are given, all at once or none. Domains
replace the project's domains (repeat --domain); those left out are free at
once for other projects. --repo-token-file stores a token for the repository
(encrypted); --repo to another host without one drops the stored token.
The live deployment stays until the next update builds from the new settings.`}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		fl := c.Flags()
		return with(func(ctx context.Context, st store.Store, out *printer) error {
			p, err := st.GetProject(ctx, args[0])
			if err != nil {
				return err
			}
			var ch store.ProjectChange
			changed := false
			if fl.Changed("name") {
				n, err := lectern.NormalizeName(name)
				if err != nil {
					return fmt.Errorf("--name %s", lectern.ErrorMessage(err))
				}
				ch.Name, changed = &n, true
			}
			if fl.Changed("branch") {
				if err := gitsource.CheckBranch(branch); err != nil {
					return fmt.Errorf("--branch: %s", lectern.ErrorMessage(err))
				}
				ch.Branch, changed = &branch, true
			}
			if fl.Changed("docs-root") {
				root, err := lectern.NormalizeDocsRoot(docsRoot)
				if err != nil {
					return fmt.Errorf("--docs-root: %s", lectern.ErrorMessage(err))
				}
				ch.DocsRoot, changed = &root, true
			}
			if fl.Changed("deployment-type") {
				dt, err := lectern.ParseDeploymentType(depType)
				if err != nil {
					return err
				}
				ch.DeploymentType, changed = &dt, true
			}
			if fl.Changed("custom-scripts") {
				ch.CustomScripts, changed = &customScripts, true
			}
			if fl.Changed("domain") {
				hosts, err := hf.serverHosts("")
				if err != nil {
					return err
				}
				if ch.Domains, err = checkFlagDomains(domains, hosts); err != nil {
					return err
				}
				changed = true
			}
			if fl.Changed("known-hosts") {
				kh, err := readKnownHosts(knownHosts)
				if err != nil {
					return err
				}
				ch.KnownHosts, changed = &kh, true
			}
			if fl.Changed("repo") || tokenFile != "" {
				if err := repoChange(&ch, p, repo, fl.Changed("repo"), tokenFile, e.stdin, keyOf); err != nil {
					return err
				}
				changed = true
			}
			if !changed {
				return fmt.Errorf("nothing to change: give at least one of --name, --repo, --repo-token-file, --known-hosts, --branch, --docs-root, --domain, --deployment-type, --custom-scripts")
			}
			id := p.ID
			p, err = st.UpdateProject(ctx, id, ch)
			if err != nil {
				return domainOwner(ctx, st, id, ch.Domains, err)
			}
			hideRepoCredentials(p)
			return out.result(p, fmt.Sprintf("Updated project %q: serving %s from branch %s of %s.",
				p.Name, strings.Join(p.Domains, ", "), p.Branch, displayRepo(p.RepoURL)), p.ID)
		})(c, args)
	}
	fl := cmd.Flags()
	fl.StringVar(&name, "name", "", "project name")
	fl.StringVar(&repo, "repo", "", "git repository: a local path, file://, http:// or https:// URL, or over SSH ssh://git@host/path or git@host:path; a token goes in --repo-token-file, an SSH key is the project's deploy key")
	fl.StringVar(&tokenFile, "repo-token-file", "", "file holding the token for an http(s) repository, - for standard input; stored encrypted, never shown")
	fl.StringVar(&knownHosts, "known-hosts", "", "file of known_hosts lines pinning the SSH host's keys ('' to pin the key the host shows on the next fetch)")
	fl.StringVar(&branch, "branch", "", "deployment branch")
	fl.StringVar(&docsRoot, "docs-root", "", "folder of the docs inside the repository")
	fl.StringArrayVar(&domains, "domain", nil, "a domain of the site (repeatable; replaces every domain)")
	fl.StringVar(&depType, "deployment-type", "", "cloud, client-hosted or air-gapped")
	fl.BoolVar(&customScripts, "custom-scripts", false, "load the repository's .js files on every page (--custom-scripts=false: none)")
	hf.register(fl, "the server's --public-url, whose host no project may use (as for project create)")
	return cmd
}

// repoChange sets the change of a project's repository and credentials:
// a new URL (its userinfo or tokenFile sealed as for project create) or
// a new token for the current one. A new host without a token drops the
// stored one, which was for the old host.
func repoChange(ch *store.ProjectChange, p *lectern.Project, repo string, repoGiven bool, tokenFile string, stdin io.Reader, keyOf func() (*secrets.Key, error)) error {
	next := &lectern.Project{ID: p.ID, RepoURL: p.RepoURL}
	if repoGiven {
		if strings.TrimSpace(repo) == "" {
			return fmt.Errorf("--repo must not be empty")
		}
		next.RepoURL = strings.TrimSpace(repo)
	}
	if err := setRepoCredentials(next, tokenFile, stdin, keyOf); err != nil {
		return err
	}
	ch.RepoURL = &next.RepoURL
	none := ""
	switch {
	case next.RepoCredentials != "":
		ch.RepoCredentials = &next.RepoCredentials
	case repoOrigin(next.RepoURL) != repoOrigin(p.RepoURL):
		ch.RepoCredentials = &none
	}
	if repoOrigin(next.RepoURL) != repoOrigin(p.RepoURL) && ch.KnownHosts == nil {
		ch.KnownHosts = &none // the old host's keys; the new host's are pinned on its first fetch
	}
	return nil
}

// repoOrigin is the scheme and host of a repository URL (the host of a
// user@host:path address, the URL itself for a local path).
func repoOrigin(repoURL string) string {
	clean, _, _, _ := splitUserinfo(repoURL)
	scheme, rest, ok := strings.Cut(clean, "://")
	if !ok {
		if gitsource.IsSSH(clean) {
			host, _, _ := strings.Cut(clean, ":")
			if at := strings.LastIndexByte(host, '@'); at >= 0 {
				host = host[at+1:]
			}
			return "ssh://" + strings.ToLower(host)
		}
		return clean
	}
	host, _, _ := strings.Cut(rest, "/")
	return strings.ToLower(scheme + "://" + host)
}

// checkFlagDomains normalizes --domain values (ServerHosts.CheckDomains).
func checkFlagDomains(domains []string, hosts *lectern.ServerHosts) ([]string, error) {
	out, err := hosts.CheckDomains(domains)
	if err != nil {
		return nil, fmt.Errorf("--domain: %s", lectern.ErrorMessage(err))
	}
	return out, nil
}

// projectDeleteCmd is lectern admin project delete.
func projectDeleteCmd(with withStore) *cobra.Command {
	cmd := &cobra.Command{Use: "delete PROJECT_ID", Short: "Delete a project: its sites stop at once, its domains are freed", Args: cobra.ExactArgs(1),
		Long: `Delete a project at once: its domains stop being served and are free for
other projects, its queued and running updates and exports end canceled, and
the janitor of a running server collects its deployments and files an hour
later. It cannot be undone.`}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return with(func(ctx context.Context, st store.Store, out *printer) error {
			p, err := st.GetProject(ctx, args[0])
			if err != nil {
				return err
			}
			if err := st.DeleteProject(ctx, p.ID, time.Now()); err != nil {
				return err
			}
			return out.result(map[string]any{"id": p.ID, "deleted": true, "domains": p.Domains},
				fmt.Sprintf("Deleted project %q; %s no longer served and free for other projects.", p.Name, strings.Join(p.Domains, ", ")), p.ID)
		})(c, args)
	}
	return cmd
}

// orgLifecycleCmds are lectern admin org rename and delete.
func orgLifecycleCmds(with withStore) []*cobra.Command {
	rename := &cobra.Command{Use: "rename ORG_ID NAME", Short: "Rename an organization", Args: cobra.ExactArgs(2)}
	rename.RunE = func(c *cobra.Command, args []string) error {
		return with(func(ctx context.Context, st store.Store, out *printer) error {
			name, err := lectern.NormalizeName(args[1])
			if err != nil {
				return fmt.Errorf("the new name %s", lectern.ErrorMessage(err))
			}
			if err := st.RenameOrg(ctx, args[0], name); err != nil {
				return err
			}
			o, err := st.GetOrg(ctx, args[0])
			if err != nil {
				return err
			}
			return out.result(o, fmt.Sprintf("Renamed organization %s to %q.", o.ID, o.Name), o.ID)
		})(c, args)
	}
	var force bool
	del := &cobra.Command{Use: "delete ORG_ID", Short: "Delete an organization and revoke its API keys", Args: cobra.ExactArgs(1),
		Long: `Delete an organization and revoke its API keys at once. It is refused while
the organization has projects, unless --force, which deletes them first (see
lectern admin project delete).`}
	del.RunE = func(c *cobra.Command, args []string) error {
		return with(func(ctx context.Context, st store.Store, out *printer) error {
			id := args[0]
			if _, err := st.GetOrg(ctx, id); err != nil {
				return err
			}
			ps, err := st.ListProjects(ctx, id, store.Page{})
			if err != nil {
				return err
			}
			if len(ps) > 0 && !force {
				names := make([]string, len(ps))
				for i, p := range ps {
					names[i] = p.ID
				}
				return fmt.Errorf("organization %s has %d projects (%s): delete them first, or give --force to delete them with it",
					id, len(ps), strings.Join(names, ", "))
			}
			now := time.Now()
			for _, p := range ps {
				if err := st.DeleteProject(ctx, p.ID, now); err != nil && lectern.ErrorCode(err) != lectern.ENOTFOUND {
					return fmt.Errorf("delete project %s: %w", p.ID, err)
				}
			}
			if err := st.DeleteOrg(ctx, id, now); err != nil {
				if len(ps) > 0 {
					return fmt.Errorf("its %d projects were deleted, but the organization was not (a project was created meanwhile?): %w; run the command again", len(ps), err)
				}
				return err
			}
			return out.result(map[string]any{"id": id, "deleted": true, "projectsDeleted": len(ps)},
				fmt.Sprintf("Deleted organization %s (%d projects), and revoked its API keys.", id, len(ps)), id)
		})(c, args)
	}
	del.Flags().BoolVar(&force, "force", false, "delete the organization's projects too")
	return []*cobra.Command{rename, del}
}

// domainOwner turns the store's ECONFLICT of a taken domain into an error
// naming the project (and organization) that holds it, for the operator,
// who may see every organization's.
func domainOwner(ctx context.Context, st store.Store, self string, domains []string, err error) error {
	if lectern.ErrorCode(err) != lectern.ECONFLICT {
		return err
	}
	for _, d := range domains {
		if p, gerr := st.GetProjectByDomain(ctx, d); gerr == nil && p.ID != self {
			return lectern.Errorf(lectern.ECONFLICT, "domain %q already belongs to project %q (%s) of organization %s: remove it there first (lectern admin project update %s --domain ...), or choose another",
				d, p.Name, p.ID, p.OrgID, p.ID)
		}
	}
	return err
}
