package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern/client"
)

// webhooksCmd is lectern webhook: the organization's webhooks through the
// API.
func webhooksCmd(e *env) *cobra.Command {
	af := &apiFlags{}
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Create, list and delete webhooks, and read their deliveries, through the API",
		Long: `Webhooks send the organization's events (update.succeeded, update.failed,
update.canceled, export.completed, export.failed, export.canceled) to an
endpoint, signed as Standard Webhooks says; docs/ci.md shows how to check a
signature. A delivery is retried with backoff for 24 hours while the endpoint
answers anything but 2xx.`,
	}
	var url string
	var events []string
	create := &cobra.Command{Use: "create --url URL --event EVENT...", Short: "Create a webhook and print its signing secret (shown once)", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if url == "" || len(events) == 0 {
				return usageError(fmt.Errorf("give --url and at least one --event (update.succeeded, update.failed, update.canceled, export.completed, export.failed, export.canceled)"))
			}
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				w, err := cl.CreateWebhook(ctx, client.WebhookRequest{URL: url, Events: events})
				if err != nil {
					return err
				}
				return af.show(e, w, []string{
					"Created webhook " + w.ID + " for " + strings.Join(w.Events, ", ") + " at " + w.URL + ".",
					"Its signing secret, shown this once (store it where the endpoint can read it):",
					w.Secret})
			})
		}}
	create.Flags().StringVar(&url, "url", "", "the endpoint, an https:// (or http://) URL")
	create.Flags().StringSliceVar(&events, "event", nil, "an event to send (repeatable, or comma-separated)")
	var lo listFlags
	list := &cobra.Command{Use: "list", Short: "List the organization's webhooks", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				pg, err := cl.Webhooks(ctx, lo.options())
				if err != nil {
					return err
				}
				rows := make([][]string, len(pg.Items))
				for i, w := range pg.Items {
					rows[i] = []string{w.ID, w.URL, strings.Join(w.Events, ","), w.CreatedAt.Format(time.RFC3339)}
				}
				return af.page(e, pg, pg.NextCursor, []string{"ID", "URL", "EVENTS", "CREATED"}, rows)
			})
		}}
	lo.register(list)
	del := &cobra.Command{Use: "delete WEBHOOK_ID", Short: "Delete a webhook; its pending deliveries end canceled", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				if err := cl.DeleteWebhook(ctx, args[0]); err != nil {
					return err
				}
				return af.show(e, map[string]any{"id": args[0], "deleted": true}, []string{"Deleted webhook " + args[0] + "."})
			})
		}}
	var do listFlags
	deliveries := &cobra.Command{Use: "deliveries WEBHOOK_ID", Short: "List a webhook's deliveries and their attempts, newest first", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return af.call(c, e, func(ctx context.Context, cl *client.Client) error {
				pg, err := cl.Deliveries(ctx, args[0], do.options())
				if err != nil {
					return err
				}
				rows := make([][]string, len(pg.Items))
				for i, d := range pg.Items {
					last := "-"
					if n := len(d.Attempts); n > 0 {
						a := d.Attempts[n-1]
						last = strconv.Itoa(a.StatusCode)
						if a.Error != "" {
							last += " " + a.Error
						}
					}
					rows[i] = []string{d.ID, d.Event, d.Status, strconv.Itoa(len(d.Attempts)), d.CreatedAt.Format(time.RFC3339), last}
				}
				return af.page(e, pg, pg.NextCursor, []string{"ID", "EVENT", "STATUS", "ATTEMPTS", "CREATED", "LAST"}, rows)
			})
		}}
	do.register(deliveries)
	cmd.AddCommand(create, list, del, deliveries)
	return af.apiCommand(e, cmd)
}
