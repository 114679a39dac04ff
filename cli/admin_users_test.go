package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	lecternpkg "lectern.dev/lectern"
	"lectern.dev/lectern/cli"
	"lectern.dev/lectern/password"
	"lectern.dev/lectern/store/sqlite"
)

// TestAdminUserCreate: admin user create prints a one-time sign-in link
// on the public URL, then the user id; the link's token is stored only as
// its hash and signs in once. With --password-file the argon2id hash of
// the file's line is stored and no link is printed. list and delete work
// on the store; refused input changes nothing.
func TestAdminUserCreate(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	env := map[string]string{}
	admin := func(stdin string, args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := cli.Run(context.Background(), append([]string{"admin", "--data-dir", data}, args...),
			func(k string) string { return env[k] }, strings.NewReader(stdin), &out, &errb)
		return out.String(), errb.String(), err
	}
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	other := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Other"))

	out, errOut, err := admin("", "user", "create", "--org", org, "--email", "Ada@Acme.Test", "--role", "owner", "--public-url", "https://lectern.acme.test/")
	if err != nil {
		t.Fatalf("user create: %v\n%s", err, errOut)
	}
	m := regexp.MustCompile(`(?m)^https://lectern\.acme\.test/dashboard/welcome\?token=(lsi_[a-z2-7]{52})$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("user create printed no sign-in link on the public URL:\n%s", out)
	}
	token := m[1]
	ada := lastLine(out)
	if !lecternpkg.ValidID(lecternpkg.PrefixUser, ada) || !strings.Contains(out, "Created owner user ada@acme.test in organization "+org) || !strings.Contains(out, "24 hours") {
		t.Errorf("user create output:\n%s\nwant the normalized email, the role, 24 hours, and a user id last", out)
	}
	if strings.Count(out, token) != 1 || strings.Contains(errOut, token) {
		t.Errorf("the token is printed other than once on stdout:\nstdout %s\nstderr %s", out, errOut)
	}

	// The default public URL, and LECTERN_PUBLIC_URL.
	out, _, err = admin("", "user", "create", "--org", org, "--email", "bob@acme.test")
	if err != nil || !strings.Contains(out, "\nhttp://127.0.0.1:8080/dashboard/welcome?token=lsi_") || !strings.Contains(out, "Created member user") {
		t.Errorf("user create without --public-url: %v\n%s", err, out)
	}
	env["LECTERN_PUBLIC_URL"] = "https://docs-admin.acme.test"
	out, _, err = admin("", "--json", "user", "create", "--org", org, "--email", "cy@acme.test")
	var res struct {
		ID, Email, SignInLink, PasswordHash string
		SignInLinkExpiresAt                 time.Time
	}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || !strings.HasPrefix(res.SignInLink, "https://docs-admin.acme.test/dashboard/welcome?token=lsi_") ||
		time.Until(res.SignInLinkExpiresAt) < 23*time.Hour || time.Until(res.SignInLinkExpiresAt) > 25*time.Hour || strings.Contains(out, "asswordHash") {
		t.Errorf("user create --json with LECTERN_PUBLIC_URL: %v\n%s", err, out)
	}
	delete(env, "LECTERN_PUBLIC_URL")

	// With a password file: no link, the hash of the line stored.
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("a long enough secret\n"), 0o600)
	out, errOut, err = admin("", "user", "create", "--org", other, "--email", "dee@other.test", "--password-file", pwFile)
	if err != nil || strings.Contains(out, "token=") || !strings.Contains(out, "Password set.") || strings.Contains(out+errOut, "secret") {
		t.Errorf("user create --password-file: %v\n%s%s", err, out, errOut)
	}
	dee := lastLine(out)
	out, _, err = admin("correct horse battery\n", "user", "create", "--org", other, "--email", "eve@other.test", "--password-file", "-", "--role", "member")
	if err != nil {
		t.Fatalf("user create --password-file -: %v", err)
	}
	eve := lastLine(out)

	// Refused: nothing stored, the password never shown.
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("tiny-secret\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--org", org, "--email", "x@acme.test", "--password-file", short}, "has 11 characters: give 12 to 256"},
		{[]string{"--org", org, "--email", "x@acme.test", "--role", "admin"}, "--role"},
		{[]string{"--org", org, "--email", "not-an-email"}, "--email"},
		{[]string{"--org", org, "--email", "ADA@acme.test"}, "already exists"},
		{[]string{"--org", missingOrg(), "--email", "x@acme.test"}, "not found"},
		{[]string{"--org", org, "--email", "x@acme.test", "--public-url", "ftp://x"}, "--public-url"},
	} {
		_, errOut, err := admin("", append([]string{"user", "create"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error()+errOut, "tiny-secret") {
			t.Errorf("user create %v: %v, want an error saying %q", c.args, err, c.want)
		}
	}

	list := lectern(t, "admin", "--data-dir", data, "user", "list", "--org", other)
	if !strings.Contains(list, dee) || !strings.Contains(list, eve) || strings.Contains(list, ada) || !strings.Contains(list, "active") {
		t.Errorf("user list --org %s:\n%s", other, list)
	}
	if all := lectern(t, "admin", "--data-dir", data, "user", "list"); strings.Count(all, "usr_") != 5 || !strings.Contains(all, "no password yet") {
		t.Errorf("user list shows other than the 5 users created:\n%s", all)
	}

	// What the store holds: the hash of the password, the token's hash.
	st, err := sqlite.Open(t.Context(), filepath.Join(data, "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.GetUser(t.Context(), dee)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := password.Verify("a long enough secret", u.PasswordHash); !ok || err != nil || u.PasswordSetAt.IsZero() {
		t.Errorf("stored password of %s does not verify (%v, %v), or PasswordSetAt %v", dee, ok, err, u.PasswordSetAt)
	}
	if u, _ := st.GetUser(t.Context(), eve); u == nil || u.PasswordHash == "" {
		t.Errorf("no password stored from standard input")
	} else if ok, _ := password.Verify("correct horse battery", u.PasswordHash); !ok {
		t.Errorf("the password read from standard input does not verify")
	}
	if db, _ := os.ReadFile(filepath.Join(data, "lectern.db")); bytes.Contains(db, []byte(token)) {
		t.Error("the database file holds the sign-in token in clear")
	}
	got, err := st.UseSignInToken(t.Context(), lecternpkg.HashToken(token), time.Now())
	if err != nil || got.ID != ada {
		t.Errorf("UseSignInToken of the printed link = %v, %v; want %s", got, err, ada)
	}
	if _, err := st.UseSignInToken(t.Context(), lecternpkg.HashToken(token), time.Now()); lecternpkg.ErrorCode(err) != lecternpkg.ENOTFOUND {
		t.Errorf("the link signed in twice: %v", err)
	}
	if _, err := st.UseSignInToken(t.Context(), lecternpkg.HashToken(linkToken(t, res.SignInLink)), time.Now().Add(25*time.Hour)); lecternpkg.ErrorCode(err) != lecternpkg.ENOTFOUND {
		t.Errorf("the link works after 25 hours: %v", err)
	}

	out, _, err = admin("", "user", "delete", eve)
	if err != nil || lastLine(out) != eve {
		t.Errorf("user delete: %v\n%s", err, out)
	}
	if _, err := st.GetUser(t.Context(), eve); lecternpkg.ErrorCode(err) != lecternpkg.ENOTFOUND {
		t.Errorf("GetUser after user delete: %v", err)
	}
	if _, _, err := admin("", "user", "delete", eve); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("user delete again: %v, want not found", err)
	}
}

func missingOrg() string { return lecternpkg.NewID(lecternpkg.PrefixOrg) }

// linkToken returns the token parameter of a link.
func linkToken(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("token")
}
