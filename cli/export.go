package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"lectern.dev/lectern/client"
)

type exportFlags struct {
	domain   string
	basePath string
	wait     bool
	out      string
	timeout  time.Duration
	cancelIt bool
}

func exportCmd(e *env) *cobra.Command {
	af := &apiFlags{}
	f := &exportFlags{}
	cmd := &cobra.Command{
		Use:   "export --domain HOST [--wait] [--out FILE]",
		Short: "Export a domain's live site as a static bundle through the API (enterprise plan)",
		Long: `Start a static export of the live site serving --domain through a Lectern
server's API and print the job id. With --wait, follow the job (a progress bar
with the percentage and pages on a terminal, a line every few seconds in a
log), then ask for the bundle and print its size, SHA-256, bundleUrl and
expiresAt. With --out, also download the bundle to FILE, showing its
progress, and check its size and SHA-256 (--out implies --wait). The file is
written only when it checks out.

The server is --api-url or LECTERN_API_URL. The admin API key is read from
LECTERN_API_KEY or from the file named by --api-key-file (LECTERN_API_KEY_FILE);
it is never a flag, which would show in process lists. --json prints one
JSON object for scripts.

Exit status: 0 when the export completed (and the bundle downloaded), 1
when it failed or was canceled, or on any error, 2 when it did not end
within --timeout (it then goes on on the server; lectern export bundle
JOB_ID gets its bundle later). Interrupted (Ctrl-C), the job goes on on the
server unless --cancel-on-interrupt; lectern export cancel JOB_ID cancels
it later.`,
		Example: `  lectern export --domain docs.acme.com --wait --out site.tar.gz
  lectern export --domain docs.acme.com --wait --json | jq -r .bundleUrl
  lectern export bundle exp_01hzy3k6q2v9d8e7f6g5h4j3k2 --out site.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, e, af)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.domain, "domain", "", "the domain whose live site to export (required)")
	fl.StringVar(&f.basePath, "base-path", "", "the URL path the exported site will be served under, like /docs")
	fl.BoolVar(&f.wait, "wait", false, "follow the job until it ends, then get the bundle's link")
	fl.StringVar(&f.out, "out", "", "download the bundle to this file (implies --wait)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Minute, "with --wait, how long to wait for the job to end and the download to finish")
	fl.BoolVar(&f.cancelIt, "cancel-on-interrupt", false, "with --wait, cancel the job on the server when interrupted (Ctrl-C, SIGTERM)")
	cmd.AddCommand(bundleCmd(e, af), exportListCmd(e, af), cancelCmd(e, af, "export"))
	return af.apiCommand(e, cmd)
}

func bundleCmd(e *env, af *apiFlags) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "bundle JOB_ID",
		Short: "Get a fresh download link for a completed export's bundle, and download it with --out",
		Long: `Ask for a fresh download link of a completed export job's bundle (links
expire; the job and its archive stay) and print it with the bundle's size,
SHA-256 and expiresAt. With --out, also download it to FILE and check its
size and SHA-256.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBundle(cmd, e, af, args[0], out)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "download the bundle to this file")
	return cmd
}

// exportResult is what --json prints at the end of an export.
type exportResult struct {
	JobID       string             `json:"jobId"`
	Domain      string             `json:"domain,omitempty"`
	BasePath    string             `json:"basePath,omitempty"`
	Status      client.ExportState `json:"status,omitempty"`
	Progress    *int               `json:"progress,omitempty"`
	PageCount   *int               `json:"pageCount,omitempty"`
	CompletedAt *time.Time         `json:"completedAt,omitempty"`
	Error       *client.JobError   `json:"error,omitempty"`
	BundleURL   string             `json:"bundleUrl,omitempty"`
	ExpiresAt   *time.Time         `json:"expiresAt,omitempty"`
	SizeBytes   *int64             `json:"sizeBytes,omitempty"`
	SHA256      string             `json:"sha256,omitempty"`
	Version     string             `json:"version,omitempty"`
	Path        string             `json:"path,omitempty"`
}

func (r *exportResult) setJob(j *client.ExportJob) {
	r.JobID, r.Domain, r.BasePath, r.Status = j.JobID, j.Domain, j.BasePath, j.Status
	r.Progress, r.PageCount, r.CompletedAt, r.Error = &j.Progress, &j.PageCount, j.CompletedAt, j.Error
}

func (r *exportResult) setBundle(b *client.Bundle) {
	exp := b.ExpiresAt.UTC()
	r.JobID, r.BundleURL, r.ExpiresAt, r.SizeBytes, r.SHA256, r.Version = b.JobID, b.BundleURL, &exp, &b.SizeBytes, b.SHA256, b.Version
}

// print writes the result as JSON, or as "name: value" lines.
func (r *exportResult) print(w io.Writer, asJSON bool) error {
	if asJSON {
		return printJSON(w, r)
	}
	var b strings.Builder
	if r.Status != "" {
		fmt.Fprintf(&b, "status: %s\n", r.Status)
	}
	if r.PageCount != nil {
		fmt.Fprintf(&b, "pages: %d\n", *r.PageCount)
	}
	if r.Error != nil {
		fmt.Fprintf(&b, "error: %s (%s)\n", r.Error.Message, r.Error.Code)
	}
	if r.Path != "" {
		fmt.Fprintf(&b, "path: %s\n", r.Path)
	}
	if r.SizeBytes != nil {
		fmt.Fprintf(&b, "size: %d bytes (%s)\n", *r.SizeBytes, humanize.Bytes(uint64(*r.SizeBytes)))
	}
	if r.SHA256 != "" {
		fmt.Fprintf(&b, "sha256: %s\n", r.SHA256)
	}
	if r.Version != "" {
		fmt.Fprintf(&b, "version: %s\n", r.Version)
	}
	if r.BundleURL != "" {
		fmt.Fprintf(&b, "bundleUrl: %s\nexpiresAt: %s\n", r.BundleURL, r.ExpiresAt.Format(time.RFC3339))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (f *exportFlags) run(cmd *cobra.Command, e *env, af *apiFlags) error {
	if strings.TrimSpace(f.domain) == "" {
		return usageError(errors.New("--domain is required, like --domain docs.example.com"))
	}
	if f.out != "" {
		f.wait = true
		if err := checkOut(f.out); err != nil {
			return err
		}
	}
	if f.wait && f.timeout <= 0 {
		return usageError(errors.New("--timeout must be positive"))
	}
	if f.cancelIt && !f.wait {
		return usageError(errors.New("--cancel-on-interrupt needs --wait (or --out): without it the command ends once the job is queued"))
	}
	c, err := af.connect(e)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	job, err := c.StartExport(ctx, f.domain, f.basePath)
	if err != nil {
		return fmt.Errorf("start export of %s: %w", f.domain, err)
	}
	if !f.wait {
		if af.json {
			return printJSON(e.stdout, job)
		}
		_, err := fmt.Fprintln(e.stdout, job.JobID)
		return err
	}
	if !af.json {
		fmt.Fprintln(e.stdout, job.JobID)
	}
	wctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	timedOut := func(what string, err error) error {
		if wctx.Err() != nil && ctx.Err() == nil {
			return &cmdError{exit: 2, code: "timeout", jobID: job.JobID,
				err: fmt.Errorf("export %s: %s did not finish within %s", job.JobID, what, f.timeout)}
		}
		var ce *cmdError
		if errors.As(err, &ce) {
			return err
		}
		return &cmdError{exit: 1, code: "error", jobID: job.JobID, err: err}
	}
	prog := newExportProgress(e.stderr, onTerminal(e.stderr), af.json)
	final, err := c.WaitExport(wctx, job.JobID, prog.update)
	prog.finish()
	if err != nil {
		if ierr := interrupted(ctx, f.cancelIt, "export", job.JobID, func(cctx context.Context) error {
			_, err := c.CancelExport(cctx, job.JobID)
			return err
		}); ierr != nil {
			return ierr
		}
		state := ""
		if final != nil {
			state = fmt.Sprintf(" (status %s, %d%%, %d pages); it goes on on the server", final.Status, final.Progress, final.PageCount)
		}
		return timedOut("the job"+state, err)
	}
	res := &exportResult{}
	res.setJob(final)
	if final.Status == client.ExportFailed || final.Status == client.ExportCanceled {
		if err := res.print(e.stdout, af.json); err != nil {
			return err
		}
		msg := "no reason given"
		if final.Error != nil {
			msg = final.Error.Message + " (" + final.Error.Code + ")"
		}
		code, verb := "job_failed", "failed"
		if final.Status == client.ExportCanceled {
			code, verb = "canceled", "was canceled"
		}
		return outcome(af, 1, &cmdError{exit: 1, code: code, jobID: final.JobID,
			err: fmt.Errorf("export %s %s: %s", final.JobID, verb, msg)})
	}
	b, err := c.Bundle(wctx, final.JobID)
	if err != nil {
		return timedOut("asking for the bundle", fmt.Errorf("bundle of %s: %w", final.JobID, err))
	}
	res.setBundle(b)
	if f.out != "" {
		path, err := download(wctx, c, b, f.out, newByteProgress(e.stderr, onTerminal(e.stderr), af.json))
		if err != nil {
			return timedOut("the download", err)
		}
		res.Path = path
	}
	return res.print(e.stdout, af.json)
}

func runBundle(cmd *cobra.Command, e *env, af *apiFlags, jobID, out string) error {
	if out != "" {
		if err := checkOut(out); err != nil {
			return err
		}
	}
	c, err := af.connect(e)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	b, err := c.Bundle(ctx, jobID)
	if err != nil {
		return &cmdError{exit: 1, code: "error", jobID: jobID, err: fmt.Errorf("bundle of %s: %w", jobID, err)}
	}
	res := &exportResult{}
	res.setBundle(b)
	if out != "" {
		path, err := download(ctx, c, b, out, newByteProgress(e.stderr, onTerminal(e.stderr), af.json))
		if err != nil {
			return err
		}
		res.Path = path
	}
	return res.print(e.stdout, af.json)
}

// checkOut refuses an --out that cannot be written before any work starts.
func checkOut(out string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return usageError(fmt.Errorf("--out %s: %w", out, err))
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return usageError(fmt.Errorf("--out %s is a folder; name the file to write, like %s", out, filepath.Join(out, "site.tar.gz")))
	}
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return usageError(fmt.Errorf("--out %s: the folder %s does not exist", out, filepath.Dir(abs)))
	}
	return nil
}

// download writes the bundle to a temporary file beside out and renames it
// to out once its size and SHA-256 check out. It returns out's absolute
// path.
func download(ctx context.Context, c *client.Client, b *client.Bundle, out string, prog *byteProgress) (string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".part-*")
	if err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	err = c.Download(ctx, b, tmp, prog.update)
	prog.finish(err == nil)
	if err != nil {
		return "", &cmdError{exit: 1, code: downloadCode(err), jobID: b.JobID, err: fmt.Errorf("download of %s's bundle: %w", b.JobID, err)}
	}
	if err := tmp.Chmod(0o644); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), abs); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	keep = true
	return abs, nil
}

func downloadCode(err error) string {
	if errors.Is(err, client.ErrIntegrity) {
		return "integrity"
	}
	return "download_failed"
}
