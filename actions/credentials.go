package actions

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/crypto/ssh"

	"lectern.dev/lectern"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// DefaultRepoUser is the user name given with a token when neither the
// caller nor the repository URL names one (GitHub's convention; most
// hosts accept any name with a token).
const DefaultRepoUser = "x-access-token"

// MaxRepoToken bounds a repository token, in bytes.
const MaxRepoToken = 16 << 10

// SplitUserinfo returns an http(s) URL without its user name and
// password, and those; ok is false for URLs without them and for other
// addresses.
func SplitUserinfo(repoURL string) (clean, user, pass string, ok bool) {
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

// displayRepo is a repository URL fit for an error: without credentials.
func displayRepo(repoURL string) string {
	if clean, _, _, ok := SplitUserinfo(repoURL); ok {
		return clean
	}
	return gitsource.Redact(repoURL)
}

// CheckRepoTokenURL reports whether a token may be given for repoURL: an
// http:// or https:// URL that holds no password already (the token is
// that password). EINVALID otherwise.
func CheckRepoTokenURL(repoURL string) error {
	scheme, _, _ := strings.Cut(strings.ToLower(repoURL), "://")
	if scheme != "http" && scheme != "https" {
		return lectern.Errorf(lectern.EINVALID,
			"A repository token needs an http:// or https:// repository URL, not %s (a repository reached over SSH uses the project's deploy key).", displayRepo(repoURL))
	}
	if _, _, pass, _ := SplitUserinfo(repoURL); pass != "" {
		return lectern.Errorf(lectern.EINVALID, "The repository URL %s already holds a password, and a token is another: give it once, as the token.", displayRepo(repoURL))
	}
	return nil
}

// CheckRepoCredentials refuses credentials git could not be given
// safely: control characters (a line break would end the credential
// helper's answer), a ":" in the user name (it would split there), or a
// password over MaxRepoToken bytes. The error never holds them.
func CheckRepoCredentials(user, pass string) error {
	switch {
	case len(pass) > MaxRepoToken:
		return lectern.Errorf(lectern.EINVALID, "The token is longer than %d bytes: it is not a token.", MaxRepoToken)
	case strings.ContainsFunc(pass, unicode.IsControl):
		return lectern.Errorf(lectern.EINVALID, "The token holds control characters (a line break, a tab): give the token alone, on one line.")
	case strings.ContainsFunc(user, unicode.IsControl) || strings.Contains(user, ":"):
		return lectern.Errorf(lectern.EINVALID, "The user name holds control characters or \":\": give the name alone.")
	}
	return nil
}

// RepoToken checks a token (and user name, "" for the URL's, else
// DefaultRepoUser) given for the http(s) repository repoURL, and returns
// the user name to seal with it. Its errors are EINVALID and never hold
// the token.
func RepoToken(repoURL, user, token string) (string, error) {
	if err := CheckRepoTokenURL(repoURL); err != nil {
		return "", err
	}
	if token == "" {
		return "", lectern.Errorf(lectern.EINVALID, "The token is empty: give the repository's access token.")
	}
	if user == "" {
		_, user, _, _ = SplitUserinfo(repoURL)
	}
	if user == "" {
		user = DefaultRepoUser
	}
	if err := CheckRepoCredentials(user, token); err != nil {
		return "", err
	}
	return user, nil
}

// SetRepoToken stores the credentials git gives for the organization's
// project's http(s) repository: the token, with user ("" for the URL's
// user name, else DefaultRepoUser), sealed with the server's secret key
// for this project. A user name left in the URL moves into them. Bad
// credentials are EINVALID; without a secret key, EUNAVAILABLE.
func (s *Service) SetRepoToken(ctx context.Context, org, projectID, user, token string) (*lectern.Project, error) {
	p, err := s.Project(ctx, org, projectID)
	if err != nil {
		return nil, err
	}
	user, err = RepoToken(p.RepoURL, strings.TrimSpace(user), token)
	if err != nil {
		return nil, err
	}
	if s.Secrets == nil {
		return nil, errNoSecretKey("Repository credentials are stored encrypted with")
	}
	sealed := s.Secrets.SealRepoCredentials(p.ID, user, token)
	ch := store.ProjectChange{RepoCredentials: &sealed}
	if clean, _, _, ok := SplitUserinfo(p.RepoURL); ok {
		ch.RepoURL = &clean
	}
	return s.Store.UpdateProject(ctx, p.ID, ch)
}

// ClearRepoToken removes the organization's project's repository
// credentials: the next update fetches without them.
func (s *Service) ClearRepoToken(ctx context.Context, org, projectID string) (*lectern.Project, error) {
	p, err := s.Project(ctx, org, projectID)
	if err != nil {
		return nil, err
	}
	none := ""
	return s.Store.UpdateProject(ctx, p.ID, store.ProjectChange{RepoCredentials: &none})
}

// DeployKey is the public half of a project's SSH deploy key, to add to
// the repository's host as a read-only deploy key.
type DeployKey struct {
	ProjectID string `json:"projectId"`
	// PublicKey is an authorized_keys line: "ssh-ed25519 AAAA...
	// lectern-PROJECT_ID".
	PublicKey   string `json:"publicKey"`
	Fingerprint string `json:"fingerprint"`
}

func deployKeyOf(projectID string, pub ssh.PublicKey) *DeployKey {
	return &DeployKey{ProjectID: projectID, Fingerprint: ssh.FingerprintSHA256(pub),
		PublicKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))) + " lectern-" + projectID}
}

// NewDeployKey makes an ed25519 key pair for project projectID: its
// private half sealed with key for that project, and its public half.
func NewDeployKey(key *secrets.Key, projectID string) (sealed string, dk *DeployKey, err error) {
	pk, sk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", nil, err
	}
	block, err := ssh.MarshalPrivateKey(sk, "lectern "+projectID)
	if err != nil {
		return "", nil, err
	}
	pub, err := ssh.NewPublicKey(pk)
	if err != nil {
		return "", nil, err
	}
	return key.SealDeployKey(projectID, pem.EncodeToMemory(block)), deployKeyOf(projectID, pub), nil
}

// OpenDeployKey returns the public half of p's deploy key, nil when it
// has none. A key that this secret key cannot open, or that is damaged,
// is an ECONFLICT saying to make a new one (rotate).
func OpenDeployKey(key *secrets.Key, p *lectern.Project) (*DeployKey, error) {
	if p.DeployKey == "" {
		return nil, nil
	}
	priv, err := key.OpenDeployKey(p.ID, p.DeployKey)
	if err != nil {
		return nil, lectern.Errorf(lectern.ECONFLICT, "The project's deploy key cannot be read with this secret key (%v): rotate it to make a new pair.", err)
	}
	signer, err := ssh.ParsePrivateKey(priv)
	if err != nil {
		return nil, lectern.Errorf(lectern.ECONFLICT, "The project's deploy key is damaged (%v): rotate it to make a new pair.", err)
	}
	return deployKeyOf(p.ID, signer.PublicKey()), nil
}

// DeployKey returns the public half of the organization's project's
// deploy key, nil when it has none.
func (s *Service) DeployKey(ctx context.Context, org, projectID string) (*DeployKey, error) {
	p, err := s.Project(ctx, org, projectID)
	if err != nil {
		return nil, err
	}
	if p.DeployKey == "" {
		return nil, nil
	}
	if s.Secrets == nil {
		return nil, errNoSecretKey("The deploy key is stored encrypted with")
	}
	return OpenDeployKey(s.Secrets, p)
}

// MakeDeployKey returns the public half of the organization's project's
// deploy key, making the pair when there is none or when rotate is set
// (the old pair is replaced: the host must be given the new public key
// before the next update). Without a secret key, EUNAVAILABLE.
func (s *Service) MakeDeployKey(ctx context.Context, org, projectID string, rotate bool) (*DeployKey, error) {
	p, err := s.Project(ctx, org, projectID)
	if err != nil {
		return nil, err
	}
	if s.Secrets == nil {
		return nil, errNoSecretKey("A deploy key is stored encrypted with")
	}
	if p.DeployKey != "" && !rotate {
		return OpenDeployKey(s.Secrets, p)
	}
	sealed, dk, err := NewDeployKey(s.Secrets, p.ID)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.UpdateProject(ctx, p.ID, store.ProjectChange{DeployKey: &sealed}); err != nil {
		return nil, err
	}
	return dk, nil
}

// HostKey is one pinned SSH host key of a project's repository host.
type HostKey struct {
	Hosts       []string
	Type        string
	Fingerprint string
}

// PinnedHostKeys reads a project's pinned known_hosts lines (KnownHosts);
// lines it cannot read are left out.
func PinnedHostKeys(knownHosts string) []HostKey {
	var keys []HostKey
	for _, line := range strings.Split(knownHosts, "\n") {
		_, hosts, pub, _, _, err := ssh.ParseKnownHosts([]byte(line))
		if err != nil {
			continue
		}
		keys = append(keys, HostKey{Hosts: hosts, Type: pub.Type(), Fingerprint: ssh.FingerprintSHA256(pub)})
	}
	return keys
}
