package gitsource

import (
	"strings"

	"lectern.dev/lectern"
)

// CheckRemote validates a repository address that an organization gives
// through the API: an http:// or https:// URL without credentials. A
// local path or file:// URL names the server's own disk, which only the
// operator may point a project at (another tenant's repository could lie
// there), and credentials in a URL would be kept in clear: both are
// EINVALID errors that say what to do instead.
func CheckRemote(repoURL string) error {
	// Local addresses are refused before parseSource, which looks at the
	// disk: whether a path exists there is not the caller's to learn.
	scheme, _, remote := strings.Cut(repoURL, "://")
	if strings.TrimSpace(repoURL) != "" && !strings.Contains(repoURL, "::") && (!remote || strings.EqualFold(scheme, "file")) {
		return lectern.Errorf(lectern.EINVALID,
			"repository %s is on the server's disk: only the operator can use one (lectern admin project update --repo); give an https:// URL", Redact(repoURL))
	}
	src, err := parseSource(repoURL)
	if err != nil {
		return err
	}
	if src.hasCreds {
		return lectern.Errorf(lectern.EINVALID,
			"repository URL %s holds credentials, which would be kept in clear: give the URL without them and ask the operator to store a token (lectern admin project update --repo-token-file)", src.display)
	}
	return nil
}

// CheckBranch validates a branch name as `git check-ref-format --branch`
// does.
func CheckBranch(name string) error { return checkBranch(name) }
