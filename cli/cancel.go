package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern/client"
)

// cancelTimeout bounds the cancel request sent after an interrupt.
const cancelTimeout = 15 * time.Second

// interrupted handles a wait that ctx's end (Ctrl-C, SIGTERM) cut short:
// with --cancel-on-interrupt it cancels the job on the server (cancel)
// and says so; without, it says that the job goes on. It returns nil when
// ctx has not ended.
func interrupted(ctx context.Context, cancelIt bool, what, id string, cancel func(context.Context) error) error {
	if ctx.Err() == nil {
		return nil
	}
	ce := &cmdError{exit: 1, code: "interrupted"}
	if what == "update" {
		ce.statusID = id
	} else {
		ce.jobID = id
	}
	if !cancelIt {
		ce.err = fmt.Errorf("interrupted; %s %s goes on on the server (cancel it with lectern %s cancel %s, or pass --cancel-on-interrupt next time)", what, id, what, id)
		return ce
	}
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	err := cancel(cctx)
	var apiErr *client.Error
	switch {
	case err == nil:
		ce.code, ce.err = "canceled", fmt.Errorf("interrupted; %s %s canceled on the server", what, id)
	case errors.As(err, &apiErr) && apiErr.Code == client.CodeConflict:
		ce.err = fmt.Errorf("interrupted; %s %s had already ended: %s", what, id, apiErr.Detail)
	default:
		ce.err = fmt.Errorf("interrupted; canceling %s %s failed, so it goes on on the server: %w", what, id, err)
	}
	return ce
}

// cancelCmd is lectern update cancel and lectern export cancel.
func cancelCmd(e *env, af *apiFlags, what string) *cobra.Command {
	arg := "STATUS_ID"
	if what == "export" {
		arg = "JOB_ID"
	}
	return &cobra.Command{
		Use:   "cancel " + arg,
		Short: "Cancel a queued or running " + what + " (a running one stops within seconds and publishes nothing)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return af.call(cmd, e, func(ctx context.Context, c *client.Client) error {
				if what == "export" {
					j, err := c.CancelExport(ctx, args[0])
					if err != nil {
						return err
					}
					return af.show(e, j, []string{"export " + j.JobID + ": " + string(j.Status)})
				}
				u, err := c.CancelUpdate(ctx, args[0])
				if err != nil {
					return err
				}
				return af.show(e, u, []string{"update " + u.StatusID + ": " + string(u.Status)})
			})
		},
	}
}
