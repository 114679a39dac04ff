package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern"
	"lectern.dev/lectern/client"
)

func updateCmd(e *env) *cobra.Command {
	af := &apiFlags{}
	var wait, cancelIt bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "update PROJECT_ID",
		Short: "Deploy a project's branch through the API, and follow the update with --wait",
		Long: `Trigger a deployment update of a project through a Lectern server's API and
print its status id. With --wait, follow it: status changes and new build log
lines go to standard error, and the outcome and summary to standard output.

The server is --api-url or LECTERN_API_URL. The admin API key is read from
LECTERN_API_KEY or from the file named by --api-key-file (LECTERN_API_KEY_FILE);
it is never a flag, which would show in process lists.

Exit status with --wait: 0 when the update succeeded, 1 when it failed or
was canceled (or on any error), 2 when it was superseded by a newer update
or did not end within --timeout (it then goes on on the server). Interrupted
(Ctrl-C), it goes on on the server unless --cancel-on-interrupt; lectern
update cancel STATUS_ID cancels it later.`,
		Example: `  export LECTERN_API_URL=https://lectern.example.com
  export LECTERN_API_KEY=lct_...          # from your CI's secrets
  lectern update prj_01hzy3k6q2v9d8e7f6g5h4j3k2 --wait --timeout 10m`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpdate(cmd, e, af, args[0], wait, cancelIt, timeout)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&wait, "wait", false, "follow the update until it ends, streaming its log")
	fl.DurationVar(&timeout, "timeout", 30*time.Minute, "with --wait, how long to wait for the update to end")
	fl.BoolVar(&cancelIt, "cancel-on-interrupt", false, "with --wait, cancel the update on the server when interrupted (Ctrl-C, SIGTERM)")
	cmd.AddCommand(cancelCmd(e, af, "update"))
	return af.apiCommand(e, cmd)
}

func runUpdate(cmd *cobra.Command, e *env, af *apiFlags, projectID string, wait, cancelIt bool, timeout time.Duration) error {
	if wait && timeout <= 0 {
		return usageError(errors.New("--timeout must be positive"))
	}
	if cancelIt && !wait {
		return usageError(errors.New("--cancel-on-interrupt needs --wait: without it the command ends once the update is queued"))
	}
	c, err := af.connect(e)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	acc, err := c.TriggerUpdate(ctx, projectID)
	if err != nil {
		return fmt.Errorf("trigger update of %s: %w", projectID, err)
	}
	if !wait {
		if af.json {
			return printJSON(e.stdout, acc)
		}
		_, err := fmt.Fprintln(e.stdout, acc.StatusID)
		return err
	}
	if !af.json {
		fmt.Fprintln(e.stdout, acc.StatusID)
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last client.UpdateState
	lastQueue := ""
	st, err := c.WaitUpdate(wctx, acc.StatusID, func(st *client.UpdateStatus, fresh []string) {
		if af.json {
			return
		}
		// A final state comes after the log that led to it.
		if st.Status.Final() {
			printLines(e.stderr, fresh)
		}
		queue := queueLine(st.Queue)
		if st.Status != last || queue != lastQueue {
			last, lastQueue = st.Status, queue
			line := "update " + st.StatusID + ": " + string(st.Status) + queue
			if st.Commit != nil && st.Status == client.UpdateInProgress {
				line += " (" + shortSHA(st.Commit.SHA) + " " + st.Commit.Ref + ")"
			}
			fmt.Fprintln(e.stderr, line)
		}
		if !st.Status.Final() {
			printLines(e.stderr, fresh)
		}
	})
	if err != nil {
		if ierr := interrupted(ctx, cancelIt, "update", acc.StatusID, func(cctx context.Context) error {
			_, err := c.CancelUpdate(cctx, acc.StatusID)
			return err
		}); ierr != nil {
			return ierr
		}
		if wctx.Err() != nil && ctx.Err() == nil {
			state := "not seen yet"
			if st != nil {
				state = string(st.Status)
			}
			return &cmdError{exit: 2, code: "timeout", statusID: acc.StatusID,
				err: fmt.Errorf("update %s did not end within %s (status: %s); it goes on on the server", acc.StatusID, timeout, state)}
		}
		return &cmdError{exit: 1, code: "error", statusID: acc.StatusID, err: err}
	}
	if af.json {
		if err := printJSON(e.stdout, st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s: %s\n", st.Status, strings.TrimSpace(st.Summary))
	}
	switch st.Status {
	case client.UpdateSuccess:
		return nil
	case client.UpdateSuperseded:
		return outcome(af, 2, &cmdError{exit: 2, code: "superseded", statusID: st.StatusID,
			err: fmt.Errorf("update %s was superseded by %s, which builds the newer state of the branch", st.StatusID, st.SupersededBy)})
	case client.UpdateCanceled:
		return outcome(af, 1, &cmdError{exit: 1, code: "canceled", statusID: st.StatusID,
			err: fmt.Errorf("update %s was canceled: %s", st.StatusID, strings.TrimSpace(st.Summary))})
	default:
		return outcome(af, 1, &cmdError{exit: 1, code: "failure", statusID: st.StatusID,
			err: fmt.Errorf("update %s failed: %s", st.StatusID, strings.TrimSpace(st.Summary))})
	}
}

// outcome is the error of a finished job that did not succeed. With
// --json, the object on stdout already says so: nothing more is printed.
func outcome(af *apiFlags, code int, err error) error {
	if af.json {
		return &exitError{code: code, err: &reportedError{err: err}}
	}
	return err
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// queueLine says where a queued update waits, as ", 2nd of your
// organization's jobs to start; ..." (lectern.QueueInfo.Describe); ""
// when it does not wait.
func queueLine(q *client.QueueInfo) string {
	if q == nil {
		return ""
	}
	return ", " + (&lectern.QueueInfo{Position: q.Position, Running: q.Running, Limit: q.Limit, Reason: q.Reason}).Describe()
}
