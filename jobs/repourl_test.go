package jobs

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
)

func TestFetchURL(t *testing.T) {
	const token = "tok-0123456789abcdef"
	key, _ := secrets.Parse(secrets.Generate())
	other, _ := secrets.Parse(secrets.Generate())
	p := &lectern.Project{ID: "prj_1", RepoURL: "https://git.acme.test/docs.git"}
	if u, err := fetchURL(p, nil); err != nil || u != p.RepoURL {
		t.Errorf("no credentials: %q, %v", u, err)
	}
	p.RepoCredentials = key.SealRepoCredentials(p.ID, "docs-bot", token)
	if u, err := fetchURL(p, key); err != nil || u != "https://docs-bot:"+token+"@git.acme.test/docs.git" {
		t.Errorf("with credentials: %q, %v", u, err)
	}
	lone := &lectern.Project{ID: "prj_2", RepoURL: p.RepoURL, RepoCredentials: key.SealRepoCredentials("prj_2", token, "")}
	if u, err := fetchURL(lone, key); err != nil || u != "https://"+token+"@git.acme.test/docs.git" {
		t.Errorf("a lone user name: %q, %v", u, err)
	}
	moved := &lectern.Project{ID: "prj_3", RepoURL: p.RepoURL, RepoCredentials: p.RepoCredentials}
	local := &lectern.Project{ID: "prj_1", RepoURL: "/srv/git/docs", RepoCredentials: p.RepoCredentials}
	for what, c := range map[string]struct {
		p    *lectern.Project
		key  *secrets.Key
		want string
	}{
		"no key":          {p, nil, "no secret key"},
		"another key":     {p, other, "another secret key"},
		"another project": {moved, key, "cannot be read"},
		"local path":      {local, key, "not an http:// or https:// URL"},
	} {
		u, err := fetchURL(c.p, c.key)
		if err == nil || u != "" || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), token) {
			t.Errorf("%s: %q, %v; want an error saying %q without the token", what, u, err, c.want)
		}
	}
}
