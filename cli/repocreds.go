package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"unicode"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// maxTokenSize bounds what --repo-token-file reads.
const maxTokenSize = actions.MaxRepoToken

// adminSecretKey loads the secret key for an admin command: nil when none
// is configured on PostgreSQL or S3 (only creating a project with
// credentials needs one there). With a key, credentials left in
// repository URLs by earlier releases are moved into encrypted storage.
func adminSecretKey(ctx context.Context, sf *storageFlags, e *env, st store.Store, log *slog.Logger) (*secrets.Key, error) {
	key, _, err := sf.projectSecrets(ctx, e.getenv, st, log)
	if errors.Is(err, errNoSecretKey) {
		return nil, nil
	}
	return key, err
}

// setRepoCredentials takes the credentials of a new project's repository
// from --repo-token-file, or from the URL's user name and password, and
// stores them sealed in p.RepoCredentials, leaving p.RepoURL without them.
func setRepoCredentials(p *lectern.Project, tokenFile string, stdin io.Reader, keyOf func() (*secrets.Key, error)) error {
	clean, user, pass, inURL := splitUserinfo(p.RepoURL)
	if tokenFile == "" && !inURL {
		if gitsource.IsSSH(p.RepoURL) && !sshPassword(p.RepoURL) {
			return nil // its user name is no secret; it authenticates with the deploy key
		}
		if _, rest, ok := strings.Cut(p.RepoURL, "://"); ok {
			if host, _, _ := strings.Cut(rest, "/"); strings.Contains(host, "@") {
				// Not an http(s) URL: refuse rather than keep them in clear.
				return fmt.Errorf("--repo %s: credentials are supported for http:// and https:// repositories only", displayRepo(p.RepoURL))
			}
		}
		return nil
	}
	if tokenFile != "" {
		// The URL is checked before the token is read: standard input is
		// not consumed for a command that cannot use it.
		if err := actions.CheckRepoTokenURL(p.RepoURL); err != nil {
			return fmt.Errorf("--repo-token-file: %s", lectern.ErrorMessage(err))
		}
		token, err := readToken(tokenFile, stdin)
		if err != nil {
			return err
		}
		if user, err = actions.RepoToken(p.RepoURL, user, token); err != nil {
			return fmt.Errorf("--repo-token-file: %s", lectern.ErrorMessage(err))
		}
		pass = token
	} else if err := actions.CheckRepoCredentials(user, pass); err != nil {
		return fmt.Errorf("--repo %s: %s", displayRepo(p.RepoURL), lectern.ErrorMessage(err))
	}
	key, err := keyOf()
	if err != nil {
		return fmt.Errorf("storing repository credentials needs the secret key: %w", err)
	}
	if p.ID == "" {
		p.ID = lectern.NewID(lectern.PrefixProject)
	}
	p.RepoURL = clean
	p.RepoCredentials = key.SealRepoCredentials(p.ID, user, pass)
	return nil
}

// readToken reads a token from a file, or standard input for "-",
// without the white space around it.
func readToken(name string, stdin io.Reader) (string, error) {
	var r io.Reader = stdin
	what := "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("--repo-token-file: %w", err)
		}
		defer f.Close()
		r, what = f, name
	}
	b, err := io.ReadAll(io.LimitReader(r, maxTokenSize+1))
	if err != nil {
		return "", fmt.Errorf("--repo-token-file: read %s: %w", what, err)
	}
	if len(b) > maxTokenSize {
		return "", fmt.Errorf("--repo-token-file: %s holds more than %d bytes: it is not a token", what, maxTokenSize)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("--repo-token-file: %s is empty: put the repository token in it", what)
	}
	if strings.ContainsFunc(token, unicode.IsControl) {
		return "", fmt.Errorf("--repo-token-file: %s holds more than one line: put only the token in it", what)
	}
	return token, nil
}

// hideRepoCredentials prepares a project for output: a repository URL
// that still holds credentials (left by an earlier release, not yet moved
// for want of a key) is shown without them, and counted as credentials.
func hideRepoCredentials(p *lectern.Project) {
	if clean, _, _, ok := splitUserinfo(p.RepoURL); ok {
		p.RepoURL = clean
		if p.RepoCredentials == "" {
			p.RepoCredentials = "in-url" // output only: JSON shows repoCredentials: true
		}
	} else if clean := displayRepo(p.RepoURL); clean != p.RepoURL {
		p.RepoURL = clean
	}
}

// sshPassword reports whether an ssh:// URL holds a password
// (ssh://user:pass@host/...), which is refused as credentials in any
// other URL are.
func sshPassword(repoURL string) bool {
	_, rest, ok := strings.Cut(repoURL, "://")
	if !ok {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndexByte(host, '@')
	return at >= 0 && strings.Contains(host[:at], ":")
}
