// Package actions is what a member of an organization does to its
// projects: trigger an update, promote a deployment, change or delete a
// project, start an export and sign its bundle's link. The API (httpapi)
// and the dashboard (dashboard) both act through it, so a rule (who owns
// what, which plan allows an export, the export quota, the domains a
// project may hold) is written once. Another organization's records are
// "not found", never "forbidden".
//
// A Service acts for an organization named by id; checking who the caller
// is (an API key, a signed-in user) and what their role allows is the
// caller's business.
package actions

import (
	"context"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// Notifier is told when a job was queued, so a worker can start at once.
type Notifier interface{ Notify() }

// Service performs organizations' actions on a store.
type Service struct {
	Store store.Store
	// Jobs is told of queued jobs; nil when no worker listens.
	Jobs Notifier
	// Links signs bundle download links.
	Links blobstore.Linker
	// Hosts are the server's own hosts, which no project may claim.
	Hosts *lectern.ServerHosts
	// BundleURLTTL is the lifetime of bundle links; default 1 h.
	BundleURLTTL time.Duration
	// ExportsPerHour bounds export starts per organization per hour;
	// 0 disables the bound.
	ExportsPerHour int
	// Secrets seals repository credentials, deploy keys and webhooks'
	// signing secrets; nil: those actions are EUNAVAILABLE.
	Secrets *secrets.Key
	// WebhookAllowPrivate lets webhooks target loopback, private and
	// link-local addresses (serve --webhook-allow-private).
	WebhookAllowPrivate bool
	// OrgJobs and OrgJobsByPlan are the workers' limits of one
	// organization's jobs running at once (serve --org-jobs and
	// --org-jobs-by-plan), which QueueInfo says a job waits for.
	OrgJobs       int
	OrgJobsByPlan map[lectern.Plan]int
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) notify() {
	if s.Jobs != nil {
		s.Jobs.Notify()
	}
}

// notFound is the error of a record the organization does not own.
func notFound(what, id string) error {
	return lectern.Errorf(lectern.ENOTFOUND, "%s %q not found", what, id)
}

// Project returns the organization's project id.
func (s *Service) Project(ctx context.Context, org, id string) (*lectern.Project, error) {
	p, err := s.Store.GetProject(ctx, id)
	if err == nil && p.OrgID != org {
		return nil, notFound("project", id)
	}
	return p, err
}

// ProjectByDomain returns the organization's project serving domain.
func (s *Service) ProjectByDomain(ctx context.Context, org, domain string) (*lectern.Project, error) {
	p, err := s.Store.GetProjectByDomain(ctx, domain)
	if err == nil && p.OrgID != org {
		return nil, notFound("domain", domain)
	}
	return p, err
}

// Update returns the organization's update id.
func (s *Service) Update(ctx context.Context, org, id string) (*lectern.Update, error) {
	u, err := s.Store.GetUpdate(ctx, id)
	if err == nil && u.OrgID != org {
		return nil, notFound("update status", id)
	}
	return u, err
}

// TriggerUpdate queues an update of the organization's project, source
// naming what asked for it ("api", "dashboard").
func (s *Service) TriggerUpdate(ctx context.Context, org, projectID, source string) (*lectern.Update, error) {
	p, err := s.Project(ctx, org, projectID)
	if err != nil {
		return nil, err
	}
	u := &lectern.Update{ProjectID: p.ID, Source: source}
	if err := s.Store.CreateUpdate(ctx, u); err != nil {
		return nil, err
	}
	s.notify()
	return u, nil
}

// Promote makes an earlier deployment of the project live again, and
// returns the update that records it.
func (s *Service) Promote(ctx context.Context, org, projectID, deploymentID string) (*lectern.Update, error) {
	p, err := s.Project(ctx, org, projectID)
	if err != nil {
		return nil, err
	}
	d, err := s.Store.GetDeployment(ctx, deploymentID)
	if err == nil && d.ProjectID != p.ID {
		err = notFound("deployment", deploymentID)
	}
	if err != nil {
		return nil, err
	}
	u := &lectern.Update{Source: "promote",
		Summary: "Made deployment " + d.ID + " (" + ShortSHA(d.Commit.SHA) + ", " + itoa(d.PageCount) + " pages) live again."}
	if err := s.Store.PromoteDeployment(ctx, p.ID, d.ID, u, s.now()); err != nil {
		return nil, err
	}
	return u, nil
}

// DeleteProject deletes the organization's project: its site goes
// offline at once, and the janitor collects its files.
func (s *Service) DeleteProject(ctx context.Context, org, id string) (*lectern.Project, error) {
	p, err := s.Project(ctx, org, id)
	if err == nil {
		err = s.Store.DeleteProject(ctx, p.ID, s.now())
	}
	return p, err
}

// ShortSHA is the first 12 characters of a commit hash.
func ShortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
