package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
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
// in the data folder, generated on first start unless sealedBy names the
// key that sealed stored credentials (a new key could not read them).
// errNoSecretKey when none applies. Errors never show the key.
func (s *storageFlags) loadSecretKey(getenv func(string) string, log *slog.Logger, sealedBy string) (*secrets.Key, error) {
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
		if fi, err := os.Stat(s.secretKeyFile); err == nil && fi.Mode().Perm()&0o044 != 0 {
			// A warning, not a refusal: mounted secrets (Kubernetes' default
			// mode is 0644) are often readable by others in their own container.
			log.Warn("the secret key file can be read by other users than its owner; make it private",
				"file", s.secretKeyFile, "mode", fmt.Sprintf("%04o", fi.Mode().Perm()), "fix", "chmod 600 "+s.secretKeyFile)
		}
		return k, nil
	}
	if !s.embeddedKey() {
		return nil, errNoSecretKey
	}
	if _, err := os.Stat(s.keyFilePath()); sealedBy != "" && errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing, but projects' repository credentials were sealed with the secret key of id %s, which a new key could not read: "+
			"restore the key file from the data folder's backup, or give that key in %s or --secret-key-file", s.keyFilePath(), sealedBy, secretKeyEnv)
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
func moveRepoCredentials(ctx context.Context, st store.Store, key *secrets.Key, ps []*lectern.Project, log *slog.Logger) error {
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

// splitUserinfo is actions.SplitUserinfo: an http(s) URL without its
// user name and password, and them.
func splitUserinfo(repoURL string) (clean, user, pass string, ok bool) {
	return actions.SplitUserinfo(repoURL)
}

// displayRepo is a repository URL as admin commands show it: without
// credentials, should a URL still hold some.
func displayRepo(repoURL string) string {
	if clean, _, _, ok := splitUserinfo(repoURL); ok {
		return clean
	}
	return gitsource.Redact(repoURL)
}

// projectSecrets reads the projects once, loads the secret key (nil
// with errNoSecretKey when none is configured and none may be made),
// checks that it is the key that sealed the credentials stored in
// projects, and moves credentials that earlier releases left in
// repository URLs into encrypted storage. It returns the projects, as
// they were read.
func (s *storageFlags) projectSecrets(ctx context.Context, getenv func(string) string, st store.Store, log *slog.Logger) (*secrets.Key, []*lectern.Project, error) {
	ps, err := st.ListProjects(ctx, "", store.Page{})
	if err != nil {
		return nil, nil, fmt.Errorf("read projects to check their repository credentials: %w", err)
	}
	sealed := map[string]int{} // key id → projects
	var sealedBy string
	for _, p := range ps {
		if id, ok := secrets.KeyID(p.RepoCredentials); ok {
			sealed[id]++
			sealedBy = id
		}
	}
	key, err := s.loadSecretKey(getenv, log, sealedBy)
	if err != nil {
		return nil, ps, err
	}
	for id, n := range sealed {
		if id != key.ID() {
			return nil, ps, fmt.Errorf("the repository credentials of %d project(s) were sealed with the secret key of id %s, but this process has the key of id %s: "+
				"give every process the key they were stored with (%s, --secret-key-file, or the data folder's secret.key)", n, id, key.ID(), secretKeyEnv)
		}
	}
	return key, ps, moveRepoCredentials(ctx, st, key, ps, log)
}

// startSecrets loads and checks the secret key for serve, which needs one
// (projectSecrets), and derives the link-signing key from it.
func (s *storageFlags) startSecrets(ctx context.Context, e *env, st store.Store, log *slog.Logger) (*secrets.Key, []byte, []*lectern.Project, error) {
	key, ps, err := s.projectSecrets(ctx, e.getenv, st, log)
	if err != nil {
		return nil, nil, nil, err
	}
	return key, key.Derive("link-signing"), ps, nil
}

// stderrLogger is the logger of the commands that are not serve: text
// lines on standard error.
func stderrLogger(e *env) *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, nil))
}
