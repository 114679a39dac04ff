package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// adminCmd groups the operator commands. They open the store directly and
// are safe to run while serve uses the same store.
func adminCmd(e *env) *cobra.Command {
	sf := &storageFlags{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Operator commands: organizations, projects, API keys and dashboard users",
		Long: `Operator commands on Lectern's store. They take the same storage settings as
serve (--data-dir, --database-url) and are safe to run while serve runs.
The created id or key is the last line of standard output; --json prints JSON.`,
	}
	pf := cmd.PersistentFlags()
	sf.register(pf)
	pf.BoolVar(&asJSON, "json", false, "print JSON")

	// with opens the store for a subcommand, and loads the secret key
	// when there is one.
	var key *secrets.Key
	with := func(fn func(ctx context.Context, st store.Store, out *printer) error) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, _ []string) error {
			if err := resolveFlags(c.Flags(), e.getenv); err != nil {
				return err
			}
			log := stderrLogger(e)
			st, err := sf.openStore(c.Context(), log)
			if err != nil {
				return err
			}
			defer st.Close()
			if key, err = adminSecretKey(c.Context(), sf, e, st, log); err != nil {
				return err
			}
			return fn(c.Context(), st, &printer{w: e.stdout, json: asJSON})
		}
	}
	keyOf := func() (*secrets.Key, error) {
		if key == nil {
			return nil, errNoSecretKey
		}
		return key, nil
	}
	cmd.AddCommand(orgCmd(with), projectCmd(with, e, keyOf), keyCmd(with), userCmd(with, e))
	return cmd
}

type withStore func(fn func(ctx context.Context, st store.Store, out *printer) error) func(*cobra.Command, []string) error

// printer writes command results as text or JSON.
type printer struct {
	w    io.Writer
	json bool
}

// result prints v as JSON, or the text lines, the last being the id.
func (p *printer) result(v any, lines ...string) error {
	if p.json {
		return printJSON(p.w, v)
	}
	_, err := io.WriteString(p.w, strings.Join(lines, "\n")+"\n")
	return err
}

// table prints rows as aligned columns, or v as JSON.
func (p *printer) table(v any, header []string, rows [][]string) error {
	if p.json {
		return p.result(v)
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func orgCmd(with withStore) *cobra.Command {
	cmd := &cobra.Command{Use: "org", Short: "Manage organizations"}
	var name, plan string
	create := &cobra.Command{Use: "create", Short: "Create an organization", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			if strings.TrimSpace(name) == "" {
				return fmt.Errorf("--name is required")
			}
			n, err := lectern.NormalizeName(name)
			if err != nil {
				return fmt.Errorf("--name: %s", lectern.ErrorMessage(err))
			}
			p, err := lectern.ParsePlan(plan)
			if err != nil {
				return err
			}
			o := &lectern.Organization{Name: n, Plan: p}
			if err := st.CreateOrg(ctx, o); err != nil {
				return err
			}
			return out.result(o, fmt.Sprintf("Created organization %q on the %s plan.", o.Name, o.Plan), o.ID)
		})}
	create.Flags().StringVar(&name, "name", "", "organization name (required)")
	create.Flags().StringVar(&plan, "plan", "free", "plan: free, pro or enterprise")

	var setPlan string
	set := &cobra.Command{Use: "set-plan ORG_ID", Short: "Change an organization's plan", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return with(func(ctx context.Context, st store.Store, out *printer) error {
				p, err := lectern.ParsePlan(setPlan)
				if err != nil {
					return err
				}
				if err := st.SetOrgPlan(ctx, args[0], p); err != nil {
					return err
				}
				o, err := st.GetOrg(ctx, args[0])
				if err != nil {
					return err
				}
				return out.result(o, fmt.Sprintf("Organization %s is now on the %s plan.", o.ID, o.Plan), o.ID)
			})(c, args)
		}}
	set.Flags().StringVar(&setPlan, "plan", "", "plan: free, pro or enterprise (required)")
	set.MarkFlagRequired("plan")

	list := &cobra.Command{Use: "list", Short: "List organizations", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			orgs, err := st.ListOrgs(ctx)
			if err != nil {
				return err
			}
			rows := make([][]string, len(orgs))
			for i, o := range orgs {
				rows[i] = []string{o.ID, o.Name, string(o.Plan), o.CreatedAt.Format(time.RFC3339)}
			}
			if orgs == nil {
				orgs = []*lectern.Organization{}
			}
			return out.table(orgs, []string{"ID", "NAME", "PLAN", "CREATED"}, rows)
		})}
	cmd.AddCommand(create, set, list)
	cmd.AddCommand(orgLifecycleCmds(with)...)
	return cmd
}

func projectCmd(with withStore, e *env, keyOf func() (*secrets.Key, error)) *cobra.Command {
	cmd := &cobra.Command{Use: "project", Short: "Manage projects"}
	var org, name, repo, branch, docsRoot, depType, tokenFile, knownHosts string
	var domains []string
	var hf hostFlags
	var customScripts bool
	create := &cobra.Command{Use: "create", Short: "Create a project", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			hosts, err := hf.serverHosts("")
			if err != nil {
				return err
			}
			if hf.publicURL != "" {
				if err := checkPublicURL(hf.publicURL); err != nil {
					return err
				}
			}
			p, err := newProject(org, name, repo, branch, docsRoot, depType, domains, hosts)
			if err != nil {
				return err
			}
			_, _, pass, _ := splitUserinfo(p.RepoURL)
			if err := setRepoCredentials(p, tokenFile, e.stdin, keyOf); err != nil {
				return err
			}
			p.CustomScripts = customScripts
			if p.KnownHosts, err = readKnownHosts(knownHosts); err != nil {
				return err
			}
			if err := st.CreateProject(ctx, p); err != nil {
				return domainOwner(ctx, st, "", p.Domains, err)
			}
			if pass != "" {
				fmt.Fprintln(e.stderr, "warning: --repo holds a password or token, which the process list and your shell's history show: give it with --repo-token-file next time, and replace the token if others can see them")
			}
			creds := ""
			if p.RepoCredentials != "" {
				creds = " (credentials stored encrypted)"
			}
			return out.result(p, fmt.Sprintf("Created project %q serving %s from branch %s of %s%s.",
				p.Name, strings.Join(p.Domains, ", "), p.Branch, displayRepo(p.RepoURL), creds), p.ID)
		})}
	fl := create.Flags()
	fl.StringVar(&org, "org", "", "organization id (required)")
	fl.StringVar(&name, "name", "", "project name (required)")
	fl.StringVar(&repo, "repo", "", "git repository: a local path, file://, http:// or https:// URL, or over SSH ssh://git@host/path or git@host:path (required); credentials go in --repo-token-file, or a deploy key (admin project deploy-key)")
	fl.StringVar(&knownHosts, "known-hosts", "", "file of known_hosts lines pinning the SSH host's keys (default: the key it shows on the first fetch)")
	fl.StringVar(&tokenFile, "repo-token-file", "", "file holding the token (password) for an http(s) repository, - for standard input; the user name is the URL's (https://USER@host/...), x-access-token without one; stored encrypted, never shown")
	fl.StringVar(&branch, "branch", "main", "deployment branch")
	fl.StringVar(&docsRoot, "docs-root", "/", "folder of the docs inside the repository")
	fl.StringArrayVar(&domains, "domain", nil, "a domain of the site (repeatable; at least one)")
	fl.StringVar(&depType, "deployment-type", "cloud", "cloud, client-hosted or air-gapped")
	hf.register(fl, "the server's --public-url: its host is the server's own, which no project may use (give serve's --public-url and --reserved-hosts here, or in the same LECTERN_PUBLIC_URL and LECTERN_RESERVED_HOSTS variables)")
	fl.BoolVar(&customScripts, "custom-scripts", false, "load the repository's .js files on every page, as Mintlify does (off: the site runs none of them)")

	var listOrg string
	list := &cobra.Command{Use: "list", Short: "List projects", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			ps, err := st.ListProjects(ctx, listOrg, store.Page{})
			if err != nil {
				return err
			}
			rows := make([][]string, len(ps))
			for i, p := range ps {
				hideRepoCredentials(p)
				live := p.LiveDeploymentID
				if live == "" {
					live = "-"
				}
				rows[i] = []string{p.ID, p.OrgID, p.Name, strings.Join(p.Domains, ","), p.Branch, live}
			}
			if ps == nil {
				ps = []*lectern.Project{}
			}
			return out.table(ps, []string{"ID", "ORG", "NAME", "DOMAINS", "BRANCH", "LIVE"}, rows)
		})}
	list.Flags().StringVar(&listOrg, "org", "", "only this organization's projects")
	cmd.AddCommand(create, list, projectUpdateCmd(with, e, keyOf), projectDeleteCmd(with), deployKeyCmd(with, keyOf))
	return cmd
}

// newProject validates the project create flags. A domain must be a DNS
// name that is not one of the server's own hosts.
func newProject(org, name, repo, branch, docsRoot, depType string, domains []string, hosts *lectern.ServerHosts) (*lectern.Project, error) {
	switch {
	case org == "":
		return nil, fmt.Errorf("--org is required")
	case strings.TrimSpace(name) == "":
		return nil, fmt.Errorf("--name is required")
	case strings.TrimSpace(repo) == "":
		return nil, fmt.Errorf("--repo is required")
	case len(domains) == 0:
		return nil, fmt.Errorf("at least one --domain is required")
	}
	if err := gitsource.CheckBranch(branch); err != nil {
		return nil, fmt.Errorf("--branch: %s", lectern.ErrorMessage(err))
	}
	name, err := lectern.NormalizeName(name)
	if err != nil {
		return nil, fmt.Errorf("--name: %s", lectern.ErrorMessage(err))
	}
	dt, err := lectern.ParseDeploymentType(depType)
	if err != nil {
		return nil, err
	}
	norm, err := checkFlagDomains(domains, hosts)
	if err != nil {
		return nil, err
	}
	if docsRoot, err = lectern.NormalizeDocsRoot(docsRoot); err != nil {
		return nil, fmt.Errorf("--docs-root: %s", lectern.ErrorMessage(err))
	}
	return &lectern.Project{OrgID: org, Name: name, RepoURL: strings.TrimSpace(repo), Branch: branch,
		DocsRoot: docsRoot, Domains: norm, DeploymentType: dt}, nil
}

func keyCmd(with withStore) *cobra.Command {
	cmd := &cobra.Command{Use: "key", Short: "Manage admin API keys"}
	var org, name string
	create := &cobra.Command{Use: "create", Short: "Create an admin API key (shown once)", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			if org == "" || strings.TrimSpace(name) == "" {
				return fmt.Errorf("--org and --name are required")
			}
			k, secret, err := (&actions.Service{Store: st}).CreateAPIKey(ctx, org, name)
			if err != nil {
				return err
			}
			return out.result(struct {
				*lectern.APIKey
				Key string `json:"key"`
			}{k, secret},
				fmt.Sprintf("Created API key %s (%q) for organization %s.", k.ID, k.Name, k.OrgID),
				"Store it now in your CI's secrets: it is not shown again.", secret)
		})}
	create.Flags().StringVar(&org, "org", "", "organization id (required)")
	create.Flags().StringVar(&name, "name", "", "a name to recognise the key by (required)")

	var listOrg string
	list := &cobra.Command{Use: "list", Short: "List API keys (never the keys themselves)", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			keys, err := st.ListAPIKeys(ctx, listOrg)
			if err != nil {
				return err
			}
			rows := make([][]string, len(keys))
			for i, k := range keys {
				used, state := "never", "active"
				if k.LastUsedAt != nil {
					used = k.LastUsedAt.Format(time.RFC3339)
				}
				if k.RevokedAt != nil {
					state = "revoked " + k.RevokedAt.Format(time.RFC3339)
				}
				rows[i] = []string{k.ID, k.OrgID, k.Name, k.Hint, k.CreatedAt.Format(time.RFC3339), used, state}
			}
			if keys == nil {
				keys = []*lectern.APIKey{}
			}
			return out.table(keys, []string{"ID", "ORG", "NAME", "KEY", "CREATED", "LAST USED", "STATE"}, rows)
		})}
	list.Flags().StringVar(&listOrg, "org", "", "only this organization's keys")

	revoke := &cobra.Command{Use: "revoke KEY_ID", Short: "Revoke an API key at once", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return with(func(ctx context.Context, st store.Store, out *printer) error {
				if err := st.RevokeAPIKey(ctx, args[0], time.Now()); err != nil {
					return err
				}
				return out.result(map[string]string{"id": args[0], "state": "revoked"}, "Revoked API key "+args[0]+".", args[0])
			})(c, args)
		}}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
