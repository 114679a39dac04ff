package actions

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
)

const testToken = "ghp_s3cretTokenValue0123456789"

func TestSetRepoToken(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ repo, user, wantUser, wantURL string }{
		{"https://git.example/acme.git", "", DefaultRepoUser, "https://git.example/acme.git"},
		{"https://git.example/acme.git", " docs-bot ", "docs-bot", "https://git.example/acme.git"},
		{"https://bot@git.example/acme.git", "", "bot", "https://git.example/acme.git"},
		{"http://git.example/acme.git", "", DefaultRepoUser, "http://git.example/acme.git"},
	} {
		o := newTestOrgs(t, c.repo)
		p, err := o.s.SetRepoToken(ctx, o.acme, o.project.ID, c.user, testToken)
		if err != nil {
			t.Fatalf("%s: %v", c.repo, err)
		}
		if p.RepoURL != c.wantURL || p.RepoCredentials == "" || strings.Contains(p.RepoCredentials, testToken) {
			t.Errorf("%s: URL %q, credentials %q", c.repo, p.RepoURL, p.RepoCredentials)
		}
		user, pass, err := o.s.Secrets.OpenRepoCredentials(p.ID, p.RepoCredentials)
		if err != nil || user != c.wantUser || pass != testToken {
			t.Errorf("%s: stored %q, %v; want user %q and the token", c.repo, user, err, c.wantUser)
		}
		if p, err = o.s.ClearRepoToken(ctx, o.acme, p.ID); err != nil || p.RepoCredentials != "" {
			t.Errorf("%s: cleared %v, %v", c.repo, p, err)
		}
	}
}

func TestSetRepoTokenRefused(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ what, repo, user, token, want string }{
		{"line break", "https://git.example/acme.git", "", "abc\ndef", "control characters"},
		{"tab", "https://git.example/acme.git", "", "abc\tdef", "control characters"},
		{"escape", "https://git.example/acme.git", "", "abc\x1b[2Jdef", "control characters"},
		{"colon in user", "https://git.example/acme.git", "a:b", testToken, "user name"},
		{"empty", "https://git.example/acme.git", "", "", "empty"},
		{"too long", "https://git.example/acme.git", "", strings.Repeat("x", MaxRepoToken+1), "longer"},
		{"ssh", "ssh://git@git.example/acme.git", "", testToken, "http:// or https://"},
		{"scp", "git@git.example:acme/docs.git", "", testToken, "deploy key"},
		{"password in URL", "https://u:" + testToken + "@git.example/acme.git", "", testToken, "give it once"},
	} {
		o := newTestOrgs(t, c.repo)
		_, err := o.s.SetRepoToken(ctx, o.acme, o.project.ID, c.user, c.token)
		if lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(lectern.ErrorMessage(err), c.want) {
			t.Errorf("%s: %v, want EINVALID saying %q", c.what, err, c.want)
		}
		if c.token != "" && strings.Contains(lectern.ErrorMessage(err), c.token) {
			t.Errorf("%s: the error holds the token", c.what)
		}
		if p, _ := o.s.Store.GetProject(ctx, o.project.ID); p.RepoCredentials != "" {
			t.Errorf("%s: credentials stored", c.what)
		}
	}

	o := newTestOrgs(t, "https://git.example/acme.git")
	for _, err := range []error{
		func() error { _, err := o.s.SetRepoToken(ctx, o.other, o.project.ID, "", testToken); return err }(),
		func() error { _, err := o.s.ClearRepoToken(ctx, o.other, o.project.ID); return err }(),
		func() error { _, err := o.s.SetRepoToken(ctx, o.acme, "prj_missing", "", testToken); return err }(),
	} {
		if lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("another organization's or a missing project: %v, want ENOTFOUND", err)
		}
	}
	o.s.Secrets = nil
	if _, err := o.s.SetRepoToken(ctx, o.acme, o.project.ID, "", testToken); lectern.ErrorCode(err) != lectern.EUNAVAILABLE {
		t.Errorf("without a secret key: %v, want EUNAVAILABLE", err)
	}
	if p, _ := o.s.Store.GetProject(ctx, o.project.ID); p.RepoCredentials != "" {
		t.Error("credentials stored by refused calls")
	}
}

func TestDeployKey(t *testing.T) {
	ctx := context.Background()
	o := newTestOrgs(t, "ssh://git@git.example/acme/docs.git")
	if dk, err := o.s.DeployKey(ctx, o.acme, o.project.ID); dk != nil || err != nil {
		t.Fatalf("a project without a key: %v, %v", dk, err)
	}
	dk, err := o.s.MakeDeployKey(ctx, o.acme, o.project.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dk.PublicKey, "ssh-ed25519 ") || !strings.HasSuffix(dk.PublicKey, " lectern-"+o.project.ID) ||
		!strings.HasPrefix(dk.Fingerprint, "SHA256:") || strings.Contains(dk.PublicKey, "PRIVATE") {
		t.Errorf("made %+v", dk)
	}
	p, _ := o.s.Store.GetProject(ctx, o.project.ID)
	priv, err := o.s.Secrets.OpenDeployKey(p.ID, p.DeployKey)
	if err != nil || strings.Contains(p.DeployKey, "PRIVATE KEY") {
		t.Fatalf("the stored key: %v", err)
	}
	signer, err := ssh.ParsePrivateKey(priv)
	if err != nil || ssh.FingerprintSHA256(signer.PublicKey()) != dk.Fingerprint {
		t.Fatalf("the stored private key does not match the public one shown: %v", err)
	}
	again, err := o.s.MakeDeployKey(ctx, o.acme, o.project.ID, false)
	if err != nil || *again != *dk {
		t.Errorf("make again without rotate: %+v, %v; want the same key", again, err)
	}
	if shown, err := o.s.DeployKey(ctx, o.acme, o.project.ID); err != nil || *shown != *dk {
		t.Errorf("DeployKey: %+v, %v", shown, err)
	}
	rotated, err := o.s.MakeDeployKey(ctx, o.acme, o.project.ID, true)
	if err != nil || rotated.PublicKey == dk.PublicKey {
		t.Errorf("rotate: %+v, %v; want a new key", rotated, err)
	}

	for _, err := range []error{
		func() error { _, err := o.s.MakeDeployKey(ctx, o.other, o.project.ID, true); return err }(),
		func() error { _, err := o.s.DeployKey(ctx, o.other, o.project.ID); return err }(),
	} {
		if lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("another organization's project: %v, want ENOTFOUND", err)
		}
	}
	if shown, _ := o.s.DeployKey(ctx, o.acme, o.project.ID); shown.PublicKey != rotated.PublicKey {
		t.Error("another organization's rotate changed the key")
	}

	// A key sealed with another secret key is a conflict that says to
	// rotate, and rotating mends it.
	o.s.Secrets, _ = secrets.Parse(secrets.Generate())
	if _, err := o.s.DeployKey(ctx, o.acme, o.project.ID); lectern.ErrorCode(err) != lectern.ECONFLICT || !strings.Contains(lectern.ErrorMessage(err), "rotate") {
		t.Errorf("a key sealed with another secret key: %v", err)
	}
	if _, err := o.s.MakeDeployKey(ctx, o.acme, o.project.ID, false); lectern.ErrorCode(err) != lectern.ECONFLICT {
		t.Errorf("make without rotate over an unreadable key: %v", err)
	}
	if _, err := o.s.MakeDeployKey(ctx, o.acme, o.project.ID, true); err != nil {
		t.Errorf("rotate over an unreadable key: %v", err)
	}
	o.s.Secrets = nil
	if _, err := o.s.MakeDeployKey(ctx, o.acme, o.project.ID, true); lectern.ErrorCode(err) != lectern.EUNAVAILABLE {
		t.Errorf("without a secret key: %v", err)
	}
}

func TestPinnedHostKeys(t *testing.T) {
	o := newTestOrgs(t, "ssh://git@git.example/acme/docs.git")
	_, dk, err := NewDeployKey(o.s.Secrets, o.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(dk.PublicKey)
	keys := PinnedHostKeys("[git.example]:2222 " + fields[0] + " " + fields[1] + "\nnot a line\n\ngit.example,10.0.0.1 " + fields[0] + " " + fields[1])
	if len(keys) != 2 || keys[0].Type != "ssh-ed25519" || keys[0].Fingerprint != dk.Fingerprint ||
		strings.Join(keys[0].Hosts, ",") != "[git.example]:2222" || strings.Join(keys[1].Hosts, ",") != "git.example,10.0.0.1" {
		t.Errorf("pinned keys %+v", keys)
	}
	if PinnedHostKeys("") != nil {
		t.Error("keys pinned from nothing")
	}
}
