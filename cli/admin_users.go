package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/password"
	"lectern.dev/lectern/store"
)

// defaultPublicURL is serve's public URL when neither --public-url nor
// LECTERN_PUBLIC_URL sets it (http:// and serve's default --addr).
const defaultPublicURL = "http://127.0.0.1:8080"

// userCmd manages dashboard accounts.
func userCmd(with withStore, e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Manage dashboard users"}
	var org, email, role, pwFile, publicURL string
	create := &cobra.Command{Use: "create", Short: "Create a dashboard user, with a one-time sign-in link or a password", Args: cobra.NoArgs,
		Long: `Create a dashboard user of an organization. Without --password-file it prints a
one-time sign-in link, valid 24 hours and shown only now, with which the user
sets a password; with it, the password is set at once. The user id is the
last line.`,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			if org == "" || email == "" {
				return fmt.Errorf("--org and --email are required")
			}
			r, err := lectern.ParseRole(role)
			if err != nil {
				return fmt.Errorf("--role: %s", lectern.ErrorMessage(err))
			}
			u := &lectern.User{OrgID: org, Email: email, Role: r}
			if u.Email, err = lectern.NormalizeEmail(email); err != nil {
				return fmt.Errorf("--email: %s", lectern.ErrorMessage(err))
			}
			base := strings.TrimRight(publicURL, "/")
			if pwFile != "" {
				pw, err := readPassword(pwFile, e.stdin)
				if err != nil {
					return err
				}
				if err := password.Check(pw); err != nil {
					return fmt.Errorf("--password-file: %s", lectern.ErrorMessage(err))
				}
				if u.PasswordHash, err = password.Hash(pw); err != nil {
					return err
				}
				u.PasswordSetAt = time.Now()
			} else {
				if base == "" {
					base = defaultPublicURL
				}
				if err := checkPublicURL(base); err != nil {
					return err
				}
			}
			// The dashboard's invitations make users the same way.
			link, err := (&actions.Service{Store: st}).AddUser(ctx, org, u, base)
			if err != nil {
				return err
			}
			lines := []string{fmt.Sprintf("Created %s user %s in organization %s.", u.Role, u.Email, u.OrgID)}
			res := struct {
				*lectern.User
				SignInLink string     `json:"signInLink,omitempty"`
				ExpiresAt  *time.Time `json:"signInLinkExpiresAt,omitempty"`
			}{User: u}
			if link == nil {
				lines = append(lines, "Password set.")
			} else {
				res.SignInLink, res.ExpiresAt = link.URL, &link.ExpiresAt
				lines = append(lines, "One-time sign-in link for the user to set a password (valid 24 hours, shown only now):", res.SignInLink)
			}
			return out.result(res, append(lines, u.ID)...)
		})}
	fl := create.Flags()
	fl.StringVar(&org, "org", "", "organization id (required)")
	fl.StringVar(&email, "email", "", "the user's email address, unique on the server (required)")
	fl.StringVar(&role, "role", "member", "owner or member")
	fl.StringVar(&pwFile, "password-file", "", "file holding the password (its first line; - for standard input): 12 to 256 characters; set at once, no sign-in link")
	fl.StringVar(&publicURL, "public-url", "", "the server's --public-url, which the sign-in link starts with (default "+defaultPublicURL+", serve's default; or LECTERN_PUBLIC_URL)")

	var listOrg string
	list := &cobra.Command{Use: "list", Short: "List dashboard users", Args: cobra.NoArgs,
		RunE: with(func(ctx context.Context, st store.Store, out *printer) error {
			users, err := st.ListUsers(ctx, listOrg)
			if err != nil {
				return err
			}
			now := time.Now()
			rows := make([][]string, len(users))
			for i, u := range users {
				state := "active"
				switch {
				case u.Locked(now):
					state = "locked until " + u.LockedUntil.Format(time.RFC3339)
				case u.PasswordHash == "":
					state = "no password yet"
				}
				rows[i] = []string{u.ID, u.OrgID, u.Email, string(u.Role), u.CreatedAt.Format(time.RFC3339), state}
			}
			if users == nil {
				users = []*lectern.User{}
			}
			return out.table(users, []string{"ID", "ORG", "EMAIL", "ROLE", "CREATED", "STATE"}, rows)
		})}
	list.Flags().StringVar(&listOrg, "org", "", "only this organization's users")

	del := &cobra.Command{Use: "delete USER_ID", Short: "Delete a dashboard user, signing them out everywhere", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return with(func(ctx context.Context, st store.Store, out *printer) error {
				if err := st.DeleteUser(ctx, args[0]); err != nil {
					return err
				}
				return out.result(map[string]string{"id": args[0], "state": "deleted"}, "Deleted user "+args[0]+" and ended their sessions.", args[0])
			})(c, args)
		}}
	cmd.AddCommand(create, list, del)
	return cmd
}

// maxPasswordFile bounds what readPassword reads: far more than the
// longest password (256 characters of up to 4 bytes).
const maxPasswordFile = 4096

// readPassword reads a password from the first line of a file, or of
// standard input for "-", keeping its spaces. Its errors never show it.
func readPassword(name string, stdin io.Reader) (string, error) {
	r, what := stdin, "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("--password-file: %w", err)
		}
		defer f.Close()
		r, what = f, name
	}
	b, err := io.ReadAll(io.LimitReader(r, maxPasswordFile+1))
	if err != nil {
		return "", fmt.Errorf("--password-file: read %s: %w", what, err)
	}
	if len(b) > maxPasswordFile {
		return "", fmt.Errorf("--password-file: %s holds more than %d bytes: put only the password in it", what, maxPasswordFile)
	}
	pw, rest, _ := strings.Cut(string(b), "\n")
	pw = strings.TrimSuffix(pw, "\r")
	if strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("--password-file: %s holds more than one line: put only the password in it", what)
	}
	if pw == "" {
		return "", fmt.Errorf("--password-file: %s is empty: put the password in it", what)
	}
	return pw, nil
}
