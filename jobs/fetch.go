package jobs

import (
	"context"

	"lectern.dev/lectern"
	"lectern.dev/lectern/gitsource"
	"lectern.dev/lectern/store"
)

// setupError is a fetch that could not start for want of the project's
// credentials: the update fails with its message, without retries.
type setupError struct{ msg string }

func (e setupError) Error() string { return e.msg }

// fetch fetches the project's branch into dir: over SSH with its deploy
// key and pinned host keys (pinning the host's key on the first fetch),
// or over HTTP(S) with its credentials, or from a local path.
func (h *UpdateHandler) fetch(ctx context.Context, f *gitsource.Fetcher, p *lectern.Project, dir string, kept bool, log *buildLog) (lectern.Commit, error) {
	if !gitsource.IsSSH(p.RepoURL) {
		repoURL, err := fetchURL(p, h.SecretKey)
		if err != nil {
			return lectern.Commit{}, setupError{err.Error()}
		}
		if kept {
			return f.FetchInto(ctx, repoURL, p.Branch, dir)
		}
		return f.Fetch(ctx, repoURL, p.Branch, dir)
	}
	var key []byte
	if p.DeployKey != "" {
		if h.SecretKey == nil {
			return lectern.Commit{}, setupError{"The project has a deploy key, but this worker has no secret key to read it."}
		}
		k, err := h.SecretKey.OpenDeployKey(p.ID, p.DeployKey)
		if err != nil {
			return lectern.Commit{}, setupError{"The deploy key cannot be read: " + err.Error()}
		}
		key = k
	}
	fetch := f.FetchSSH
	if kept {
		fetch = f.FetchIntoSSH
	}
	c, known, err := fetch(ctx, p.RepoURL, p.Branch, dir, gitsource.SSHAuth{Key: key, KnownHosts: p.KnownHosts})
	if err != nil || p.KnownHosts != "" || known == "" {
		return c, err
	}
	// The first fetch over SSH: pin the host key it trusted.
	if _, err := h.Store.UpdateProject(ctx, p.ID, store.ProjectChange{KnownHosts: &known}); err != nil {
		log.add("Could not pin the SSH host key of the repository's host (the next fetch trusts the key it shows again): %s", lectern.ErrorMessage(err))
	} else {
		log.add("Pinned the SSH host key of the repository's host; later fetches require it")
	}
	return c, nil
}
