package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"lectern.dev/lectern/client"
)

// apiKeyEnv holds the API key of the client commands. There is no flag
// for the key itself: a command line shows in process lists.
const apiKeyEnv = "LECTERN_API_KEY"

// apiFlags are the connection and output settings of the commands that
// call a Lectern server's API (update, export).
type apiFlags struct {
	url     string
	keyFile string
	json    bool
	// keyFileGiven is whether --api-key-file was on the command line, which
	// puts the file before LECTERN_API_KEY.
	keyFileGiven bool
}

func (f *apiFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "api-url", "", "the Lectern server, like https://lectern.example.com (env LECTERN_API_URL)")
	fs.StringVar(&f.keyFile, "api-key-file", "", "a file holding the admin API key (env LECTERN_API_KEY_FILE); or put the key in LECTERN_API_KEY")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout at the end, and an error as JSON on stderr")
}

// apiCommand sets what the client commands share on cmd and its
// subcommands: the connection flags, a clear refusal of an --api-key flag,
// the settings resolved from the environment and config before the
// command's own run sees them, and its error turned into what Run returns
// by finish.
func (f *apiFlags) apiCommand(e *env, cmd *cobra.Command) *cobra.Command {
	f.register(cmd.PersistentFlags())
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if err.Error() == "unknown flag: --api-key" {
			return errors.New("there is no --api-key flag: a key on the command line shows in process lists and shell history; " +
				"put it in LECTERN_API_KEY or in a file named by --api-key-file")
		}
		return err
	})
	var wrap func(c *cobra.Command)
	wrap = func(c *cobra.Command) {
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				if err := f.resolve(c, e); err != nil {
					return f.finish(e, err)
				}
				return f.finish(e, run(c, args))
			}
		}
		for _, sub := range c.Commands() {
			wrap(sub)
		}
	}
	wrap(cmd)
	return cmd
}

// resolve fills the flags the command line did not set from the
// LECTERN_... variables and config.
func (f *apiFlags) resolve(cmd *cobra.Command, e *env) error {
	fs := cmd.Flags()
	f.keyFileGiven = fs.Changed("api-key-file")
	if err := resolveFlags(fs, e.getenv); err != nil {
		return usageError(err)
	}
	return nil
}

// connect returns a client for the resolved settings. A missing URL or key
// is an error that says how to give it; no error repeats the key.
func (f *apiFlags) connect(e *env) (*client.Client, error) {
	if strings.TrimSpace(f.url) == "" {
		return nil, usageError(errors.New("no API URL: set LECTERN_API_URL or pass --api-url, like --api-url https://lectern.example.com"))
	}
	var key string
	switch envKey := strings.TrimSpace(e.getenv(apiKeyEnv)); {
	case f.keyFileGiven || envKey == "" && f.keyFile != "":
		k, err := readKeyFile(f.keyFile)
		if err != nil {
			return nil, usageError(err)
		}
		key = k
	case envKey != "":
		key = envKey
	default:
		return nil, usageError(errors.New("no API key: set LECTERN_API_KEY or pass --api-key-file FILE " +
			"(create a key with: lectern admin key create --org ORG_ID --name ci)"))
	}
	c, err := client.New(f.url, key, client.WithUserAgent("lectern/"+Version))
	if err != nil {
		return nil, usageError(err)
	}
	return c, nil
}

// readKeyFile reads an API key file: one line, surrounding space trimmed.
// Its errors never show the file's content.
func readKeyFile(path string) (string, error) {
	return readSecretFile("--api-key-file", path)
}

// cmdError is a client command's failure: its exit code, and the stable
// code --json reports it with, beside the codes of the API's problems.
type cmdError struct {
	exit int
	code string
	err  error
	// ids names the update or job it concerns, for --json.
	statusID, jobID string
}

func (e *cmdError) Error() string { return e.err.Error() }
func (e *cmdError) Unwrap() error { return e.err }

// usageError is a problem with the command's settings.
func usageError(err error) error { return &cmdError{exit: 1, code: "usage", err: err} }

// jsonError is the object written on stderr for an error with --json.
type jsonError struct {
	Code              string              `json:"code"`
	Message           string              `json:"message"`
	Status            int                 `json:"status,omitempty"`
	RequestID         string              `json:"requestId,omitempty"`
	StatusID          string              `json:"statusId,omitempty"`
	JobID             string              `json:"jobId,omitempty"`
	RetryAfterSeconds int                 `json:"retryAfterSeconds,omitempty"`
	Errors            []client.FieldError `json:"errors,omitempty"`
}

// finish turns a command's error into what Run returns: with its exit
// code, with a hint where one helps, and, with --json, written on stderr
// as {"error": {...}} first.
func (f *apiFlags) finish(e *env, err error) error {
	var done *reportedError
	if err == nil || errors.As(err, &done) {
		return err
	}
	exit := 1
	je := jsonError{Code: "error", Message: err.Error()}
	var ce *cmdError
	if errors.As(err, &ce) {
		exit, je.Code, je.StatusID, je.JobID = ce.exit, ce.code, ce.statusID, ce.jobID
	}
	var ae *client.Error
	if errors.As(err, &ae) {
		if ae.Code != "" {
			je.Code = ae.Code
		} else {
			je.Code = "http_error"
		}
		je.Message, je.Status, je.RequestID, je.Errors = ae.Detail, ae.Status, ae.RequestID, ae.Fields
		je.RetryAfterSeconds = int(ae.RetryAfter.Seconds())
		if ae.JobID != "" {
			je.JobID = ae.JobID
		}
		switch ae.Code {
		case client.CodeInvalidAPIKey, client.CodeUnauthorized:
			err = fmt.Errorf("%w; check the key in LECTERN_API_KEY or --api-key-file", err)
		}
	}
	if !f.json {
		return &exitError{code: exit, err: err}
	}
	enc := json.NewEncoder(e.stderr)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]jsonError{"error": je})
	return &exitError{code: exit, err: &reportedError{err: err}}
}

// printJSON writes v on w as one JSON object.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
