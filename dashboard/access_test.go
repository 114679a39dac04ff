package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

const accessToken = "ghp_AccessPageToken0123456789abcdef"

// accessEnv is a dashboard whose actions hold a secret key (none when
// withKey is false), with a signed-in owner's browser.
func accessEnv(t *testing.T, withKey bool) (*env, *browser) {
	t.Helper()
	var key *secrets.Key
	if withKey {
		var err error
		if key, err = secrets.Parse(secrets.Generate()); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, Config{})
	e.h.cfg.Actions.Secrets = key
	e.secrets = append(e.secrets, accessToken)
	b := e.browser("192.0.2.1")
	if s := b.signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
		t.Fatalf("sign in: %d", s)
	}
	return e, b
}

// accessOtherProject is a project of the other organization.
func accessOtherProject(t *testing.T, e *env) *lectern.Project {
	t.Helper()
	p := &lectern.Project{OrgID: e.other.ID, Name: "Other docs", RepoURL: "ssh://git@git.example/other.git", Branch: "main",
		DocsRoot: "/", Domains: []string{"docs.other.test"}, DeploymentType: lectern.DeploymentCloud}
	if err := e.st.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func accessProjectNow(t *testing.T, e *env, id string) *lectern.Project {
	t.Helper()
	p, err := e.st.GetProject(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// accessHas is b.has for text html/template may escape further (a
// fingerprint's "+").
func accessHas(b *browser, text string) bool {
	return b.has(text) || b.has(strings.ReplaceAll(text, "+", "&#43;"))
}

func accessSetRepo(t *testing.T, e *env, repo string) {
	t.Helper()
	if _, err := e.st.UpdateProject(context.Background(), e.project.ID, store.ProjectChange{RepoURL: &repo}); err != nil {
		t.Fatal(err)
	}
}

func TestAccessToken(t *testing.T) {
	e, b := accessEnv(t, true)
	base := "/dashboard/projects/" + e.project.ID + "/access"
	if s := b.do("GET", base, nil); s != 200 || !b.has("no token") || !strings.Contains(b.body, `type="password"`) ||
		!b.has("Save token") || !strings.Contains(b.body, `<label for="repo-token">Token</label>`) || !b.has("/dashboard/webhooks") {
		t.Fatalf("access page: %d\n%s", s, b.body)
	}
	tok := b.csrf()

	// Bad input: shown again with the error and the user name typed,
	// never the token; nothing stored.
	for _, c := range []struct{ user, token, want string }{
		{"docs-bot", accessToken + "\nsecond line", "control characters"},
		{"docs-bot", accessToken + "\x1b[2J", "control characters"},
		{"bot:x", accessToken, "user name"},
		{"docs-bot", "", "empty"},
	} {
		s := b.do("POST", base+"/token", url.Values{"csrf": {tok}, "user": {c.user}, "token": {c.token}})
		if s != http.StatusBadRequest || !strings.Contains(b.body, `role="alert"`) || !b.has(c.want) || !b.has("Nothing was stored") ||
			!strings.Contains(b.body, `value="`+c.user+`"`) || !strings.Contains(b.body, `id="repo-token"`) {
			t.Errorf("token %q: %d, want 400 with the form again saying %q\n%s", c.token, s, c.want, b.body)
		}
		if strings.Contains(b.body, accessToken) {
			t.Errorf("token %q: the page shows the token", c.token)
		}
	}
	if p := accessProjectNow(t, e, e.project.ID); p.RepoCredentials != "" {
		t.Fatal("refused tokens were stored")
	}

	if s := b.do("POST", base+"/token", url.Values{"csrf": {tok}, "token": {accessToken}}); s != http.StatusSeeOther ||
		b.last.Header.Get("Location") != base+"?done=token-saved" {
		t.Fatalf("set token: %d %q\n%s", s, b.last.Header.Get("Location"), b.body)
	}
	p := accessProjectNow(t, e, e.project.ID)
	user, pass, err := e.h.cfg.Actions.Secrets.OpenRepoCredentials(p.ID, p.RepoCredentials)
	if err != nil || user != "x-access-token" || pass != accessToken {
		t.Fatalf("stored credentials %q, %v", user, err)
	}
	if s := b.do("GET", base+"?done=token-saved", nil); s != 200 || !b.has("token stored") || !b.has("Saved the repository token") ||
		!b.has("Replace token") || strings.Contains(b.body, accessToken) || strings.Contains(b.body, p.RepoCredentials) {
		t.Fatalf("access page with a token: %d\n%s", s, b.body)
	}

	// Removing asks first.
	if s := b.do("GET", base+"/token/remove", nil); s != 200 || !b.has("Remove token") || !b.has("Cancel") {
		t.Fatalf("remove confirmation: %d", s)
	}
	if accessProjectNow(t, e, e.project.ID).RepoCredentials == "" {
		t.Fatal("the confirmation page removed the token")
	}
	if s := b.do("POST", base+"/token/remove", url.Values{"csrf": {tok}}); s != http.StatusSeeOther {
		t.Fatalf("remove: %d", s)
	}
	if accessProjectNow(t, e, e.project.ID).RepoCredentials != "" {
		t.Error("the token is still stored after removal")
	}
	if b.do("GET", base+"?done=token-removed", nil); !b.has("no token") || !b.has("Removed the repository token") {
		t.Errorf("access page after removal:\n%s", b.body)
	}
}

func TestAccessDeployKey(t *testing.T) {
	e, b := accessEnv(t, true)
	accessSetRepo(t, e, "git@git.example:acme/docs.git")
	base := "/dashboard/projects/" + e.project.ID + "/access"
	if s := b.do("GET", base, nil); s != 200 || !b.has("Make a key") || !b.has("SSH deploy key") || b.has("Save token") || !b.has("None yet") {
		t.Fatalf("access page of an SSH repository: %d\n%s", s, b.body)
	}
	tok := b.csrf()
	if s := b.do("POST", base+"/deploy-key", url.Values{"csrf": {tok}}); s != http.StatusSeeOther {
		t.Fatalf("make a key: %d\n%s", s, b.body)
	}
	p := accessProjectNow(t, e, e.project.ID)
	priv, err := e.h.cfg.Actions.Secrets.OpenDeployKey(p.ID, p.DeployKey)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	b.do("GET", base+"?done=key-made", nil)
	if !accessHas(b, pub+" lectern-"+p.ID) || !strings.Contains(b.body, `data-copy-from="deploy-key"`) || !b.has("read-only") ||
		!accessHas(b, ssh.FingerprintSHA256(signer.PublicKey())) || !b.has("Rotate key") || b.has("Make a key") {
		t.Fatalf("the page after making a key does not show its public half:\n%s", b.body)
	}
	// No part of the private half, clear or sealed.
	for _, line := range strings.Split(string(priv), "\n") {
		if len(line) > 20 && strings.Contains(b.body, line) {
			t.Fatalf("the page shows a line of the private key: %q", line)
		}
	}
	if strings.Contains(b.body, "PRIVATE KEY") || strings.Contains(b.body, p.DeployKey) {
		t.Fatal("the page shows the private key")
	}
	e.secrets = append(e.secrets, "PRIVATE KEY", p.DeployKey)

	// Making again changes nothing; rotating asks first, then replaces.
	b.do("POST", base+"/deploy-key", url.Values{"csrf": {tok}})
	if accessProjectNow(t, e, p.ID).DeployKey != p.DeployKey {
		t.Fatal("make a key over an existing one replaced it")
	}
	if s := b.do("GET", base+"/deploy-key/rotate", nil); s != 200 || !b.has("Rotate key") || accessProjectNow(t, e, p.ID).DeployKey != p.DeployKey {
		t.Fatalf("rotate confirmation: %d", s)
	}
	if s := b.do("POST", base+"/deploy-key/rotate", url.Values{"csrf": {tok}}); s != http.StatusSeeOther || !strings.HasSuffix(b.last.Header.Get("Location"), "done=key-rotated") {
		t.Fatalf("rotate: %d", s)
	}
	if b.do("GET", base, nil); accessHas(b, pub) || !b.has("ssh-ed25519 ") {
		t.Error("after rotation the page still shows the old public key, or no key")
	}

	// Pinned host keys are listed by fingerprint.
	kh := "git.example " + pub
	if _, err := e.st.UpdateProject(context.Background(), p.ID, store.ProjectChange{KnownHosts: &kh}); err != nil {
		t.Fatal(err)
	}
	if b.do("GET", base, nil); !b.has("Pinned host keys") || !accessHas(b, ssh.FingerprintSHA256(signer.PublicKey())) || b.has("None yet") {
		t.Errorf("pinned host keys not shown:\n%s", b.body)
	}
}

func TestAccessMember(t *testing.T) {
	e, _ := accessEnv(t, true)
	accessSetRepo(t, e, "ssh://git@git.example/acme/docs.git")
	b := e.browser("192.0.2.2")
	b.signIn("member@acme.test", memberPW)
	base := "/dashboard/projects/" + e.project.ID + "/access"
	if s := b.do("GET", base, nil); s != 200 || !b.has("SSH deploy key") || b.has("Make a key") || b.has("Save token") || !b.has("only the organization's owners") {
		t.Fatalf("member's access page: %d\n%s", s, b.body)
	}
	tok := b.csrf()
	for _, c := range []struct{ method, path string }{
		{"POST", "/token"}, {"GET", "/token/remove"}, {"POST", "/token/remove"},
		{"POST", "/deploy-key"}, {"GET", "/deploy-key/rotate"}, {"POST", "/deploy-key/rotate"},
	} {
		if s := b.do(c.method, base+c.path, url.Values{"csrf": {tok}, "token": {accessToken}}); s != http.StatusForbidden {
			t.Errorf("member %s %s: %d, want 403", c.method, c.path, s)
		}
	}
	if p := accessProjectNow(t, e, e.project.ID); p.RepoCredentials != "" || p.DeployKey != "" {
		t.Error("a member changed the project's credentials")
	}
}

func TestAccessOtherOrganization(t *testing.T) {
	e, b := accessEnv(t, true)
	other := accessOtherProject(t, e)
	b.do("GET", "/dashboard/projects/"+e.project.ID+"/access", nil)
	tok := b.csrf()
	for _, id := range []string{other.ID, "prj_missing"} {
		base := "/dashboard/projects/" + id + "/access"
		for _, c := range []struct{ method, path string }{
			{"GET", ""}, {"POST", "/token"}, {"GET", "/token/remove"}, {"POST", "/token/remove"},
			{"POST", "/deploy-key"}, {"GET", "/deploy-key/rotate"}, {"POST", "/deploy-key/rotate"},
		} {
			if s := b.do(c.method, base+c.path, url.Values{"csrf": {tok}, "token": {accessToken}}); s != http.StatusNotFound || b.has(other.Name) {
				t.Errorf("%s %s of %s: %d, want 404 naming nothing", c.method, c.path, id, s)
			}
		}
	}
	if p := accessProjectNow(t, e, other.ID); p.RepoCredentials != "" || p.DeployKey != "" {
		t.Error("another organization's project was changed")
	}
}

func TestAccessCSRF(t *testing.T) {
	e, b := accessEnv(t, true)
	base := "/dashboard/projects/" + e.project.ID + "/access"
	b.do("GET", base, nil)
	for _, path := range []string{"/token", "/token/remove", "/deploy-key", "/deploy-key/rotate"} {
		for name, v := range map[string]url.Values{"none": {"token": {accessToken}}, "wrong": {"token": {accessToken}, "csrf": {"x" + b.csrf()}}} {
			if s := b.do("POST", base+path, v); s != http.StatusForbidden {
				t.Errorf("POST %s with %s CSRF token: %d, want 403", path, name, s)
			}
			b.do("GET", base, nil)
		}
	}
	if p := accessProjectNow(t, e, e.project.ID); p.RepoCredentials != "" || p.DeployKey != "" {
		t.Error("requests without a CSRF token changed the project")
	}
}

func TestAccessNoSecretKey(t *testing.T) {
	e, b := accessEnv(t, false)
	base := "/dashboard/projects/" + e.project.ID + "/access"
	if s := b.do("GET", base, nil); s != 200 || !b.has("no secret key") || !b.has("docs/operations.md") || !b.has("LECTERN_SECRET_KEY_FILE") || b.has("Save token") {
		t.Fatalf("access page without a secret key: %d\n%s", s, b.body)
	}
	s := b.do("POST", base+"/token", url.Values{"csrf": {b.csrf()}, "token": {accessToken}})
	if s != http.StatusServiceUnavailable || !b.has("secret key") || strings.Contains(b.body, accessToken) {
		t.Errorf("set a token without a secret key: %d\n%s", s, b.body)
	}
	accessSetRepo(t, e, "ssh://git@git.example/acme/docs.git")
	if s := b.do("POST", base+"/deploy-key", url.Values{"csrf": {b.csrf()}}); s != http.StatusServiceUnavailable {
		t.Errorf("make a deploy key without a secret key: %d", s)
	}
	if p := accessProjectNow(t, e, e.project.ID); p.RepoCredentials != "" || p.DeployKey != "" {
		t.Error("stored without a secret key")
	}
	// A key stored earlier is said to be there, unreadable, not offered
	// to be made again.
	k, _ := secrets.Parse(secrets.Generate())
	sealed := k.SealDeployKey(e.project.ID, []byte("-----BEGIN OPENSSH PRIVATE KEY-----"))
	if _, err := e.st.UpdateProject(context.Background(), e.project.ID, store.ProjectChange{DeployKey: &sealed}); err != nil {
		t.Fatal(err)
	}
	if b.do("GET", base, nil); !b.has("key stored") || b.has("Make a key") || b.has("Rotate key") || strings.Contains(b.body, sealed) {
		t.Errorf("a stored key without a secret key:\n%s", b.body)
	}
}
