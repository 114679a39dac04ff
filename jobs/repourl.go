package jobs

import (
	"errors"
	"net/url"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
)

// fetchURL returns the address git fetches a project from: its repository
// URL with its credentials, opened with the secret key, as the URL's user
// name and password. gitsource hands those to git through the environment
// of the git process only, and never shows them. The error never holds
// the credentials.
func fetchURL(p *lectern.Project, key *secrets.Key) (string, error) {
	if p.RepoCredentials == "" {
		return p.RepoURL, nil
	}
	if key == nil {
		return "", errors.New("The project has repository credentials, but this worker has no secret key to read them.")
	}
	user, pass, err := key.OpenRepoCredentials(p.ID, p.RepoCredentials)
	if err != nil {
		return "", errors.New("The repository credentials cannot be read: " + err.Error())
	}
	u, err := url.Parse(p.RepoURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", errors.New("The project has repository credentials, but its repository URL is not an http:// or https:// URL.")
	}
	if pass == "" {
		u.User = url.User(user)
	} else {
		u.User = url.UserPassword(user, pass)
	}
	return u.String(), nil
}
