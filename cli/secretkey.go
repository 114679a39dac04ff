package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"

	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// secretKeyEnv holds the secret key itself (base64). It has no flag: a
// key on the command line would show in the process list.
const secretKeyEnv = "LECTERN_SECRET_KEY"

// errNoSecretKey is returned when no key is configured and none may be
// generated.
var errNoSecretKey = errors.New("no secret key: with PostgreSQL or S3 several processes share the data, so each needs the same key; " +
	secrets.CreateHint + ", then give every process --secret-key-file secret.key (LECTERN_SECRET_KEY_FILE) or the key itself in " + secretKeyEnv)

// embeddedKey reports whether the secret key may be generated on first
// start: SQLite and a local blob folder, one machine.
func (s *storageFlags) embeddedKey() bool {
	return !s.isPostgres() && !strings.HasPrefix(s.blobURL, "s3://")
}

// keyFilePath is the key file generated for the embedded default.
func (s *storageFlags) keyFilePath() string { return filepath.Join(s.dataDir, "secret.key") }

// loadSecretKey returns the secret key: LECTERN_SECRET_KEY, else the file
// named by --secret-key-file, else, for the embedded default, the key file
// in the data folder, generated on first start. errNoSecretKey when none
// applies. Errors never show the key.
func (s *storageFlags) loadSecretKey(getenv func(string) string, log *slog.Logger) (*secrets.Key, error) {
	if v := getenv(secretKeyEnv); v != "" {
		if s.secretKeyFile != "" {
			return nil, fmt.Errorf("both %s and --secret-key-file (LECTERN_SECRET_KEY_FILE) are set: keep one", secretKeyEnv)
		}
		k, err := secrets.Parse(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", secretKeyEnv, err)
		}
		return k, nil
	}
	if s.secretKeyFile != "" {
		k, err := secrets.ReadFile(s.secretKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--secret-key-file (LECTERN_SECRET_KEY_FILE): %w", err)
		}
		return k, nil
	}
	if !s.embeddedKey() {
		return nil, errNoSecretKey
	}
	k, created, err := secrets.LoadOrCreateFile(s.keyFilePath())
	if err != nil {
		return nil, err
	}
	if created {
		log.Info("generated the secret key that encrypts credentials; back it up with the data folder, apart from database copies",
			"file", s.keyFilePath(), "key_id", k.ID())
	}
	return k, nil
}

// moveRepoCredentials moves credentials that earlier releases kept in
// projects' repository URLs (https://user:token@host/...) into the sealed
// field, leaving the URL without them. One log line per project, without
// the secret.
func moveRepoCredentials(ctx context.Context, st store.Store, key *secrets.Key, log *slog.Logger) error {
	ps, err := st.ListProjects(ctx, "")
	if err != nil {
		return fmt.Errorf("read projects to move repository credentials: %w", err)
	}
	for _, p := range ps {
		clean, user, pass, ok := splitUserinfo(p.RepoURL)
		if !ok {
			continue
		}
		sealed := p.RepoCredentials
		if sealed == "" {
			sealed = key.SealRepoCredentials(p.ID, user, pass)
		}
		if err := st.SetProjectRepo(ctx, p.ID, clean, sealed); err != nil {
			return fmt.Errorf("move the repository credentials of project %s: %w", p.ID, err)
		}
		log.Warn("moved the credentials in a project's repository URL into encrypted storage", "project", p.ID, "repo", clean)
	}
	return nil
}

// splitUserinfo returns an http(s) URL without its user name and
// password, and those; ok is false for URLs without them and other
// addresses.
func splitUserinfo(repoURL string) (clean, user, pass string, ok bool) {
	scheme, _, found := strings.Cut(repoURL, "://")
	scheme = strings.ToLower(scheme)
	if !found || scheme != "http" && scheme != "https" {
		return repoURL, "", "", false
	}
	u, err := url.Parse(repoURL)
	if err != nil || u.User == nil {
		return repoURL, "", "", false
	}
	user = u.User.Username()
	pass, _ = u.User.Password()
	u.User = nil
	return u.String(), user, pass, true
}

// displayRepo is a repository URL as admin commands show it: without
// credentials, should a URL still hold some.
func displayRepo(repoURL string) string {
	if clean, _, _, ok := splitUserinfo(repoURL); ok {
		return clean
	}
	return gitsource.Redact(repoURL)
}

// startSecrets loads the secret key for serve (which needs one), derives
// the link-signing key from it and moves credentials out of repository
// URLs. (The clear link-signing key of earlier releases goes with the
// migration that drops its table.)
func (s *storageFlags) startSecrets(ctx context.Context, e *env, st store.Store, log *slog.Logger) (*secrets.Key, []byte, error) {
	key, err := s.loadSecretKey(e.getenv, log)
	if err != nil {
		return nil, nil, err
	}
	if err := moveRepoCredentials(ctx, st, key, log); err != nil {
		return nil, nil, err
	}
	return key, key.Derive("link-signing"), nil
}

// stderrLogger is the logger of the commands that are not serve: text
// lines on standard error.
func stderrLogger(e *env) *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, nil))
}
