package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// maxKnownHosts bounds what --known-hosts reads.
const maxKnownHosts = 64 << 10

// deployKeyCmd is lectern admin project deploy-key: a project's SSH key
// pair, the private half stored encrypted, the public half printed for the
// git host.
func deployKeyCmd(with withStore, keyOf func() (*secrets.Key, error)) *cobra.Command {
	var rotate bool
	cmd := &cobra.Command{Use: "deploy-key PROJECT_ID", Short: "Make the project's SSH deploy key and print its public key for the git host", Args: cobra.ExactArgs(1),
		Long: `Make an ed25519 key pair for fetching the project's repository over SSH
(--repo ssh://git@host/org/docs.git or git@host:org/docs.git): the private key
is stored encrypted with the secret key and never shown; the public key is
printed, to add as a read-only deploy key on the git host. Run it again to
print the public key again; --rotate makes a new pair (add the new public key
before the next update). The host's key is pinned on the first fetch, or
given with lectern admin project update --known-hosts FILE.`}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return with(func(ctx context.Context, st store.Store, out *printer) error {
			p, err := st.GetProject(ctx, args[0])
			if err != nil {
				return err
			}
			key, err := keyOf()
			if err != nil {
				return fmt.Errorf("a deploy key is stored encrypted and needs the secret key: %w", err)
			}
			ops := &actions.Service{Store: st, Secrets: key}
			dk, err := ops.MakeDeployKey(ctx, p.OrgID, p.ID, rotate)
			if lectern.ErrorCode(err) == lectern.ECONFLICT {
				return fmt.Errorf("%s (--rotate makes a new one)", lectern.ErrorMessage(err))
			}
			if err != nil {
				return err
			}
			line, fp := dk.PublicKey, dk.Fingerprint
			repo := "the repository"
			if p.RepoURL != "" {
				repo = displayRepo(p.RepoURL)
			}
			return out.result(map[string]any{"projectId": p.ID, "publicKey": line, "fingerprint": fp},
				"Add this public key to "+repo+" as a read-only deploy key ("+fp+"):", line)
		})(c, args)
	}
	cmd.Flags().BoolVar(&rotate, "rotate", false, "make a new key pair, replacing the stored one")
	return cmd
}

// readKnownHosts reads --known-hosts: known_hosts lines, each checked; ""
// (the flag given empty) clears the pinned keys.
func readKnownHosts(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--known-hosts: %w", err)
	}
	if len(b) > maxKnownHosts {
		return "", fmt.Errorf("--known-hosts: %s is larger than %d bytes", path, maxKnownHosts)
	}
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, _, _, _, _, err := ssh.ParseKnownHosts([]byte(line)); err != nil {
			return "", fmt.Errorf("--known-hosts: %q is not a known_hosts line (host key): %v", lectern.Truncate(line, 60), err)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("--known-hosts: %s holds no host key (ssh-keyscan HOST prints them)", path)
	}
	return strings.Join(lines, "\n"), nil
}
