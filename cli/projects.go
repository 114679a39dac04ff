package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern/client"
)

// projectsCmd is lectern project: the organization's projects through
// the API, as a CI job or a docs team sees them.
func projectsCmd(e *env) *cobra.Command {
	af := &apiFlags{}
	cmd := &cobra.Command{
		Use:   "project",
		Short: "List, show, change and delete your organization's projects through the API",
		Long: `Read and change the projects of the API key's organization through a Lectern
server's API (--api-url or LECTERN_API_URL; the key in LECTERN_API_KEY or
--api-key-file), and read their history: updates and deployments. Lists are
newest first; --limit and --cursor read them a page at a time (the next
page's cursor is printed last). --json prints what the API answered.`,
	}
	var lo listFlags
	list := &cobra.Command{Use: "list", Short: "List the organization's projects", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				pg, err := cl.Projects(ctx, lo.options())
				if err != nil {
					return err
				}
				rows := make([][]string, len(pg.Items))
				for i, p := range pg.Items {
					rows[i] = []string{p.ID, p.Name, strings.Join(p.Domains, ","), p.Branch, orDash(p.LiveDeploymentID)}
				}
				return af.page(e, pg, pg.NextCursor, []string{"ID", "NAME", "DOMAINS", "BRANCH", "LIVE"}, rows)
			})
		}}
	lo.register(list)
	show := &cobra.Command{Use: "show PROJECT_ID", Short: "Show a project and its live deployment", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				p, err := cl.Project(ctx, args[0])
				if err != nil {
					return err
				}
				return af.show(e, p, projectLines(p))
			})
		}}
	var pf projectFlags
	set := &cobra.Command{Use: "set PROJECT_ID", Short: "Change a project's settings (only those given)", Args: cobra.ExactArgs(1),
		Long: `Change the settings given, all at once or none. --domain (repeatable) replaces
every domain; those left out are free at once. The repository is an https://
URL without credentials (tokens are stored by the operator). The live
deployment stays until the next update builds from the new settings.`,
		RunE: func(c *cobra.Command, args []string) error {
			patch, err := pf.patch(c)
			if err != nil {
				return usageError(err)
			}
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				p, err := cl.UpdateProject(ctx, args[0], patch)
				if err != nil {
					return err
				}
				return af.show(e, p, projectLines(p))
			})
		}}
	pf.register(set)
	var yes bool
	del := &cobra.Command{Use: "delete PROJECT_ID --yes", Short: "Delete a project: its sites stop at once, its domains are freed", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if !yes {
				return usageError(fmt.Errorf("deleting %s stops its sites at once and cannot be undone: give --yes to confirm", args[0]))
			}
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				if err := cl.DeleteProject(ctx, args[0]); err != nil {
					return err
				}
				return af.show(e, map[string]any{"id": args[0], "deleted": true}, []string{"Deleted project " + args[0] + "."})
			})
		}}
	del.Flags().BoolVar(&yes, "yes", false, "confirm the deletion")
	var uo listFlags
	updates := &cobra.Command{Use: "updates PROJECT_ID", Short: "List a project's updates, newest first", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				pg, err := cl.Updates(ctx, args[0], uo.options())
				if err != nil {
					return err
				}
				rows := make([][]string, len(pg.Items))
				for i, u := range pg.Items {
					sha := "-"
					if u.Commit != nil && len(u.Commit.SHA) >= 12 {
						sha = u.Commit.SHA[:12]
					}
					rows[i] = []string{u.StatusID, string(u.Status), u.CreatedAt.Format(time.RFC3339), sha, u.Summary}
				}
				return af.page(e, pg, pg.NextCursor, []string{"ID", "STATUS", "CREATED", "COMMIT", "SUMMARY"}, rows)
			})
		}}
	uo.register(updates)
	var do listFlags
	deployments := &cobra.Command{Use: "deployments PROJECT_ID", Short: "List a project's deployments, newest first, the live one marked", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				pg, err := cl.Deployments(ctx, args[0], do.options())
				if err != nil {
					return err
				}
				rows := make([][]string, len(pg.Items))
				for i, d := range pg.Items {
					live := ""
					if d.Live {
						live = "live"
					}
					rows[i] = []string{d.ID, live, d.CreatedAt.Format(time.RFC3339), orDash(shortSHA(d.Commit.SHA)), strconv.Itoa(d.PageCount)}
				}
				return af.page(e, pg, pg.NextCursor, []string{"ID", "LIVE", "CREATED", "COMMIT", "PAGES"}, rows)
			})
		}}
	do.register(deployments)
	promote := &cobra.Command{Use: "promote PROJECT_ID DEPLOYMENT_ID", Short: "Make a kept deployment live again (roll back), at once", Args: cobra.ExactArgs(2),
		Long: `Make one of the project's kept deployments (lectern project deployments) live
again, at once and atomically; the switch is recorded in the project's
updates. The next update replaces it as usual.`,
		RunE: func(c *cobra.Command, args []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				u, err := cl.PromoteDeployment(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				return af.show(e, u, []string{u.Summary, u.StatusID})
			})
		}}
	cmd.AddCommand(list, show, set, del, updates, deployments, promote)
	return af.apiCommand(e, cmd)
}

// exportListCmd is lectern export list.
func exportListCmd(e *env, af *apiFlags) *cobra.Command {
	var lo listFlags
	var domain, status string
	cmd := &cobra.Command{Use: "list", Short: "List export jobs, newest first, to find a job again", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				pg, err := cl.Exports(ctx, client.ExportListOptions{ListOptions: lo.options(), Domain: domain, Status: client.ExportState(status)})
				if err != nil {
					return err
				}
				rows := make([][]string, len(pg.Items))
				for i, j := range pg.Items {
					rows[i] = []string{j.JobID, j.Domain, string(j.Status), j.CreatedAt.Format(time.RFC3339), strconv.Itoa(j.Progress) + "%"}
				}
				return af.page(e, pg, pg.NextCursor, []string{"JOB", "DOMAIN", "STATUS", "CREATED", "PROGRESS"}, rows)
			})
		}}
	lo.register(cmd)
	cmd.Flags().StringVar(&domain, "domain", "", "only the jobs of this domain")
	cmd.Flags().StringVar(&status, "status", "", "only the jobs in this state: queued, running, completed, failed or canceled")
	return cmd
}

// listFlags are --limit and --cursor.
type listFlags struct {
	limit  int
	cursor string
}

func (l *listFlags) register(c *cobra.Command) {
	c.Flags().IntVar(&l.limit, "limit", 0, "records per page, 1 to 100 (default 20)")
	c.Flags().StringVar(&l.cursor, "cursor", "", "the page to read: the cursor printed after the previous one")
	// Before RunE, whenever that is set, and before any request.
	c.PreRunE = func(cmd *cobra.Command, _ []string) error { return l.check(cmd) }
}

func (l *listFlags) options() client.ListOptions {
	return client.ListOptions{Limit: l.limit, Cursor: l.cursor}
}

// check refuses a --limit out of range before any request.
func (l *listFlags) check(c *cobra.Command) error {
	if c.Flags().Changed("limit") && (l.limit < 1 || l.limit > 100) {
		return usageError(fmt.Errorf("--limit %d: give 1 to 100", l.limit))
	}
	return nil
}

// projectFlags are lectern project set's settings.
type projectFlags struct {
	name, repo, branch, docsRoot, depType string
	domains                               []string
}

func (f *projectFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.name, "name", "", "project name")
	fl.StringVar(&f.repo, "repo", "", "repository: an https:// or http:// URL without credentials")
	fl.StringVar(&f.branch, "branch", "", "deployment branch")
	fl.StringVar(&f.docsRoot, "docs-root", "", "folder of the docs inside the repository")
	fl.StringArrayVar(&f.domains, "domain", nil, "a domain of the site (repeatable; replaces every domain)")
	fl.StringVar(&f.depType, "deployment-type", "", "cloud, client-hosted or air-gapped")
}

// patch returns the change the flags given ask for.
func (f *projectFlags) patch(c *cobra.Command) (client.ProjectPatch, error) {
	var p client.ProjectPatch
	fl := c.Flags()
	for _, s := range []struct {
		flag string
		v    string
		to   **string
	}{{"name", f.name, &p.Name}, {"repo", f.repo, &p.RepoURL}, {"branch", f.branch, &p.Branch},
		{"docs-root", f.docsRoot, &p.DocsRoot}, {"deployment-type", f.depType, &p.DeploymentType}} {
		if fl.Changed(s.flag) {
			v := s.v
			*s.to = &v
		}
	}
	if fl.Changed("domain") {
		p.Domains = f.domains
	}
	if p.Name == nil && p.RepoURL == nil && p.Branch == nil && p.DocsRoot == nil && p.DeploymentType == nil && p.Domains == nil {
		return p, fmt.Errorf("nothing to change: give at least one of --name, --repo, --branch, --docs-root, --domain, --deployment-type")
	}
	return p, nil
}

// call connects and runs fn with the command's context.
func (f *apiFlags) call(cmd *cobra.Command, e *env, fn func(ctx context.Context, c *client.Client) error) error {
	c, err := f.connect(e)
	if err != nil {
		return err
	}
	return fn(cmd.Context(), c)
}

// show prints v as JSON with --json, else the lines.
func (f *apiFlags) show(e *env, v any, lines []string) error {
	if f.json {
		return printJSON(e.stdout, v)
	}
	_, err := io.WriteString(e.stdout, strings.Join(lines, "\n")+"\n")
	return err
}

// page prints a list page: as JSON with --json, else a table and, when
// there is more, the next page's cursor.
func (f *apiFlags) page(e *env, v any, next *string, header []string, rows [][]string) error {
	if f.json {
		return printJSON(e.stdout, v)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if next != nil {
		_, err := fmt.Fprintf(e.stdout, "more: --cursor %s\n", *next)
		return err
	}
	return nil
}

// projectLines describes a project for lectern project show and set.
func projectLines(p *client.Project) []string {
	live := "none yet"
	if d := p.LiveDeployment; d != nil {
		live = fmt.Sprintf("%s (commit %s, %d pages, %s)", d.ID, orDash(shortSHA(d.Commit.SHA)), d.PageCount, d.CreatedAt.Format(time.RFC3339))
	}
	return []string{
		"Project:     " + p.ID + " (" + p.Name + ")",
		"Repository:  " + p.RepoURL + " branch " + p.Branch + ", docs in " + p.DocsRoot,
		"Domains:     " + strings.Join(p.Domains, ", "),
		"Type:        " + p.DeploymentType,
		"Live:        " + live,
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
