// Package store is the storage seam of Lectern: the Store interface that the
// HTTP API, the job workers and the operator commands use, and the parameter
// structs of its methods. Implementations live in sub-packages (sqlite,
// postgres) and all pass the conformance suite in storetest.
//
// Errors: a missing record is a *lectern.Error with code lectern.ENOTFOUND; a
// rule broken by the call (a taken domain, an export already running, a lost
// job lease) has the code named on the method; anything else is an internal
// error that callers report without its text.
package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
)

// Store is everything Lectern keeps in its database.
type Store interface {
	Orgs
	Projects
	Keys
	Updates
	Exports
	Jobs
	Idempotency
	RateLimits
	Webhooks
	Assistant
	Analytics
	Accounts
	SiteWatch

	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the database. It is safe to call more than once.
	Close() error
}

// Orgs stores organizations.
type Orgs interface {
	// CreateOrg stores a new organization; it sets ID and CreatedAt when empty.
	CreateOrg(ctx context.Context, org *lectern.Organization) error
	// GetOrg returns ENOTFOUND when there is no such organization.
	GetOrg(ctx context.Context, id string) (*lectern.Organization, error)
	// ListOrgs returns all organizations, oldest first.
	ListOrgs(ctx context.Context) ([]*lectern.Organization, error)
	// SetOrgPlan changes an organization's plan; ENOTFOUND when missing.
	SetOrgPlan(ctx context.Context, id string, plan lectern.Plan) error
	// RenameOrg changes an organization's name; ENOTFOUND when missing.
	RenameOrg(ctx context.Context, id, name string) error
	// DeleteOrg removes an organization at once for every other method
	// (GetOrg, ListOrgs: ENOTFOUND, absent), revokes its API keys at at,
	// and drops its dashboard users with their sessions and sign-in
	// tokens. ECONFLICT, changing nothing, while it has projects that are not
	// deleted; ENOTFOUND when missing or already deleted. Its records are
	// dropped by PurgeOrg.
	DeleteOrg(ctx context.Context, id string, at time.Time) error
	// ListDeletedOrgs returns up to limit organizations deleted before t
	// that no project (deleted or not) names any more.
	ListDeletedOrgs(ctx context.Context, before time.Time, limit int) ([]*lectern.Organization, error)
	// PurgeOrg drops a deleted organization, its API keys and its webhooks
	// with their deliveries; ECONFLICT
	// while a project still names it, ENOTFOUND when it is not deleted.
	PurgeOrg(ctx context.Context, id string) error
}

// Projects stores projects and their domains.
type Projects interface {
	// CreateProject stores a project and its domains; it sets ID and
	// CreatedAt when empty. A domain already owned by any project is
	// ECONFLICT; a missing organization is ENOTFOUND.
	CreateProject(ctx context.Context, p *lectern.Project) error
	// GetProject returns ENOTFOUND when there is no such project.
	GetProject(ctx context.Context, id string) (*lectern.Project, error)
	// GetProjectByDomain returns the project that owns a (normalized)
	// domain, or ENOTFOUND.
	GetProjectByDomain(ctx context.Context, domain string) (*lectern.Project, error)
	// ResolveDomain returns the project that owns a (normalized) domain and
	// its live deployment ("" before the first), in one cheap read: it is
	// the lookup of every live-site request. ENOTFOUND for an unknown domain.
	ResolveDomain(ctx context.Context, domain string) (projectID, liveDeploymentID string, err error)
	// ListProjects returns the projects of an organization ("" for all),
	// newest first, one page of them.
	ListProjects(ctx context.Context, orgID string, pg Page) ([]*lectern.Project, error)
	// UpdateProject applies ch to a project in one transaction and returns
	// the project as it now is. A domain that another project owns is
	// ECONFLICT, changing nothing; ENOTFOUND when the project is missing.
	// Domains it no longer names are free at once for other projects.
	UpdateProject(ctx context.Context, id string, ch ProjectChange) (*lectern.Project, error)
	// DeleteProject removes a project at once for every other method
	// (GetProject, GetProjectByDomain, ResolveDomain, ListProjects,
	// UpdateProject, CreateUpdate, CreateExport: ENOTFOUND or absent) and frees its
	// domains, in one transaction that also ends its queued and running
	// updates and exports as canceled at at: an update with status
	// canceled, EndedAt at and the summary CanceledByDelete; an export
	// with status canceled, UpdatedAt at and the error code "canceled"
	// with the message CanceledByDelete. Their jobs are done, so a worker
	// running one loses its lease (ECONFLICT) and publishes nothing.
	// Its updates, deployments and exports stay readable by ID.
	// ENOTFOUND when missing or already deleted. Its records are dropped
	// by PurgeProject.
	DeleteProject(ctx context.Context, id string, at time.Time) error
	// ListDeletedProjects returns up to limit projects deleted before t.
	ListDeletedProjects(ctx context.Context, before time.Time, limit int) ([]*lectern.Project, error)
	// PurgeProject drops a deleted project's records: its deployments, its
	// updates and their jobs, its assistant messages, its analytics (raw
	// events, counted visitors and daily aggregates), and the project.
	// ENOTFOUND when the project is missing or not deleted.
	PurgeProject(ctx context.Context, id string) error
	// SetProjectRepo replaces a project's repository URL and its sealed
	// credentials ("" for none). ENOTFOUND when the project is missing.
	SetProjectRepo(ctx context.Context, id, repoURL, credentials string) error
	// GetDeployment returns ENOTFOUND when there is no such deployment.
	GetDeployment(ctx context.Context, id string) (*lectern.Deployment, error)
	// ListDeployments returns a project's deployments, newest first, one
	// page of them.
	ListDeployments(ctx context.Context, projectID string, pg Page) ([]*lectern.Deployment, error)
	// DeleteDeployment removes a deployment record. Deleting the live
	// deployment of its project is ECONFLICT.
	DeleteDeployment(ctx context.Context, id string) error
}

// Keys stores API keys by their hash.
type Keys interface {
	// CreateAPIKey stores a key record; it sets ID and CreatedAt when empty.
	CreateAPIKey(ctx context.Context, k *lectern.APIKey) error
	// GetAPIKeyByHash returns the key with that SHA-256 hash, revoked or
	// not, or ENOTFOUND.
	GetAPIKeyByHash(ctx context.Context, hash []byte) (*lectern.APIKey, error)
	// ListAPIKeys returns the keys of an organization ("" for all).
	ListAPIKeys(ctx context.Context, orgID string) ([]*lectern.APIKey, error)
	// RevokeAPIKey marks a key revoked (once; later calls keep the first
	// time). ENOTFOUND when missing.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error
	// TouchAPIKey records a use of the key.
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
}

// Updates stores deployment updates.
type Updates interface {
	// CreateUpdate stores a queued update and its job in one transaction,
	// and ends every older queued update of the project as superseded by
	// it. It sets ID and CreatedAt when empty.
	CreateUpdate(ctx context.Context, u *lectern.Update) error
	// GetUpdate returns ENOTFOUND when there is no such update.
	GetUpdate(ctx context.Context, id string) (*lectern.Update, error)
	// CancelUpdate ends a queued or in-progress update as canceled at at,
	// with EndedAt at and the summary CanceledByRequest, and its job done,
	// so that a worker running it loses its lease (ECONFLICT) and
	// publishes nothing; it returns the update as it now is. ECONFLICT,
	// changing nothing, when the update has already ended; ENOTFOUND when
	// it is missing.
	CancelUpdate(ctx context.Context, id string, at time.Time) (*lectern.Update, error)
	// PromoteDeployment makes a deployment of the project its live one
	// again, in one transaction that records the switch in u as an update
	// of the project: u gets ID and CreatedAt (at) when empty, status
	// success, StartedAt and EndedAt at, the deployment's commit and ID
	// (DeploymentID); u.Source and u.Summary are the caller's. A later
	// GetUpdate or ListUpdates returns it; ResolveDomain answers the
	// deployment from then on. ENOTFOUND when the project is missing or
	// deleted, or the deployment is missing or another project's.
	PromoteDeployment(ctx context.Context, projectID, deploymentID string, u *lectern.Update, at time.Time) error
	// ListUpdates returns a project's updates, newest first, one page of
	// them, each as GetUpdate returns it but without its build log (Logs
	// empty, not nil): a page stays small however long the logs.
	ListUpdates(ctx context.Context, projectID string, pg Page) ([]*lectern.Update, error)
	// StartUpdate marks the leased update in_progress.
	// ECONFLICT when the lease is lost.
	StartUpdate(ctx context.Context, lease Lease, at time.Time) error
	// FinishUpdate ends the leased update and its job in one transaction.
	// On success it stores the deployment and makes it the project's live
	// deployment. ECONFLICT when the lease is lost: nothing is changed.
	FinishUpdate(ctx context.Context, lease Lease, r UpdateResult) error
}

// Page asks for one page of a list that is sorted newest first (by
// creation time, then by ID, highest first).
type Page struct {
	// Limit is the most records returned; 0 returns them all.
	Limit int
	// After, when set, is where the previous page ended: the page holds
	// the records after it in the list's order.
	After *Cursor
}

// Cursor is a record's place in a newest-first list.
type Cursor struct {
	At time.Time
	ID string
}

// CanceledByDelete is the summary of an update, and the message of an
// export's error, that DeleteProject canceled; CanceledByRequest of those
// that CancelUpdate and CancelExport canceled.
const (
	CanceledByDelete  = "Canceled: the project was deleted."
	CanceledByRequest = "Canceled on request."
)

// ProjectChange is a change of a project's settings; nil fields keep
// theirs.
type ProjectChange struct {
	Name     *string
	RepoURL  *string
	Branch   *string
	DocsRoot *string
	// RepoCredentials replace the sealed credentials ("" for none).
	RepoCredentials *string
	// DeployKey replaces the sealed SSH deploy key ("" for none), and
	// KnownHosts the pinned host keys ("" for none).
	DeployKey  *string
	KnownHosts *string
	// Domains replace the project's domains, in order (at least one).
	Domains        []string
	DeploymentType *lectern.DeploymentType
	CustomScripts  *bool
}

// UpdateResult is the outcome of an update build.
type UpdateResult struct {
	Status     lectern.UpdateStatus // success or failure
	Summary    string
	Commit     *lectern.Commit
	Logs       []string
	Deployment *lectern.Deployment // set on success
	EndedAt    time.Time
}

// ExportQuota bounds the exports an organization may start: at most Max
// created at or after Since (Max 0: no bound).
type ExportQuota struct {
	Max   int
	Since time.Time
}

// Exports stores static export jobs.
type Exports interface {
	// CreateExport stores a queued export and its job; ENOTFOUND when its
	// project is missing or deleted. When an export of the
	// same domain is queued or running it returns an EEXPORTINPROGRESS error
	// whose JobID names it. When q.Max > 0 and the organization already
	// has q.Max exports created at or after q.Since, it returns an
	// ERATELIMITED error whose RetryAfterSeconds says when one leaves that
	// window; the check and the insert are one transaction, so concurrent
	// starters in any number of processes never exceed q.Max. It sets ID,
	// CreatedAt and UpdatedAt when empty.
	CreateExport(ctx context.Context, e *lectern.ExportJob, q ExportQuota) error
	// GetExport returns ENOTFOUND when there is no such export.
	GetExport(ctx context.Context, id string) (*lectern.ExportJob, error)
	// SetExportProgress records live progress of the leased export: status
	// running, and progress and pageCount that never decrease.
	// ECONFLICT when the lease is lost.
	SetExportProgress(ctx context.Context, lease Lease, progress, pageCount int, at time.Time) error
	// FinishExport ends the leased export and its job in one transaction:
	// completed with its bundle, or failed with its error.
	// ECONFLICT when the lease is lost: nothing is changed.
	FinishExport(ctx context.Context, lease Lease, r ExportResult) error
	// CancelExport ends a queued or running export as canceled at at,
	// with UpdatedAt at and the error code "canceled" with the message
	// CanceledByRequest, and its job done, so that a worker running it
	// loses its lease (ECONFLICT) and stores no bundle; it returns the
	// export as it now is. ECONFLICT, changing nothing, when the export has
	// already ended; ENOTFOUND when it is missing.
	CancelExport(ctx context.Context, id string, at time.Time) (*lectern.ExportJob, error)
	// ListExports returns the exports that f selects, newest first, one
	// page of them.
	ListExports(ctx context.Context, f ExportFilter, pg Page) ([]*lectern.ExportJob, error)
	// ListExportsBefore returns up to limit terminal exports (completed,
	// failed or canceled) created before t.
	ListExportsBefore(ctx context.Context, t time.Time, limit int) ([]*lectern.ExportJob, error)
	// DeleteExport removes an export and its job.
	DeleteExport(ctx context.Context, id string) error
}

// ExportFilter selects exports: those of an organization, and of a
// domain and in a state when they are set.
type ExportFilter struct {
	OrgID  string
	Domain string
	Status lectern.ExportStatus
}

// ExportResult is the outcome of an export job.
type ExportResult struct {
	Status    lectern.ExportStatus // completed or failed
	PageCount int
	Bundle    *lectern.Bundle
	Error     *lectern.JobError
	At        time.Time
}

// Job kinds.
const (
	KindUpdate = "update"
	KindExport = "export"
)

// Job is a unit of queued work. Its ID is the ID of the record it works on
// (an update's upd_ or an export's exp_ ID).
type Job struct {
	ID       string
	Kind     string
	GroupKey string // jobs sharing a group key never run at the same time
	Attempt  int    // 1 for the first run
	// MaxAttempts bounds retries of transient failures.
	MaxAttempts int
	LastError   string
	CreatedAt   time.Time
	// OrgRunning is how many jobs of its organization, of the kinds
	// claimed, ran under a live lease when it was claimed (its own not
	// counted), and OrgQueued whether another of them was queued (as far
	// as the claim knew: PostgreSQL's claims read it with the
	// organizations' order, at most 250 ms before): a worker runs
	// the build of an organization with a backlog (others running or
	// waiting) at a lower CPU priority.
	OrgRunning int
	OrgQueued  bool
}

// Lease is a worker's claim on a running job. Every write on behalf of a job
// names the lease, and is refused once another worker holds the job.
type Lease struct {
	JobID string
	Owner string
	Token int64 // incremented at every claim, so a stale owner is fenced off
}

// JobPriority is the order of a job kind within an organization's queue,
// lower first: updates (a docs fix going live) and webhook deliveries
// before exports.
func JobPriority(kind string) int {
	if kind == KindExport {
		return 1
	}
	return 0
}

// ClaimParams selects and leases the next job.
type ClaimParams struct {
	Kinds []string
	Owner string
	Now   time.Time
	// LeaseFor is how long the claim lasts without a heartbeat.
	LeaseFor time.Duration
	// OrgLimit bounds the jobs of Kinds of one organization running at
	// once (under a live lease, claimed by any process); 0 for no bound.
	OrgLimit int
	// PlanLimits, when set, bound them by the organization's plan
	// instead; a plan it does not name has OrgLimit.
	PlanLimits map[lectern.Plan]int
}

// LimitFor returns the bound of running jobs of an organization of plan.
func (p ClaimParams) LimitFor(plan lectern.Plan) int {
	if n, ok := p.PlanLimits[plan]; ok {
		return n
	}
	return p.OrgLimit
}

// Jobs is the durable job queue. A job is available when queued and due, or
// when running under a lease that has expired (its worker died).
type Jobs interface {
	// ClaimJob leases an available job of the given kinds whose group has
	// no other job under a live lease, fairly between organizations: of
	// the organizations with such a job and fewer jobs of those kinds
	// running (live leases) than p's limit for their plan, the one with the
	// fewest running, and among those the one whose last claim is the
	// oldest (never claimed first: each in turn); then that organization's
	// job of the lowest JobPriority (its updates before its exports), the
	// oldest first. It returns (nil, zero, nil) when there is none.
	ClaimJob(ctx context.Context, p ClaimParams) (*Job, Lease, error)
	// ExtendLease keeps a claim alive until the given time.
	// ECONFLICT when the lease is lost.
	ExtendLease(ctx context.Context, lease Lease, until time.Time) error
	// RetryJob gives the job back to the queue, due at runAt, recording why.
	// ECONFLICT when the lease is lost.
	RetryJob(ctx context.Context, lease Lease, runAt time.Time, reason string) error
	// ReleaseJob gives an unfinished job back to the queue at once without
	// counting the attempt (a graceful stop).
	ReleaseJob(ctx context.Context, lease Lease) error
	// CountJobs returns the number of jobs per kind and state ("queued",
	// "running", "done") for metrics.
	CountJobs(ctx context.Context) (map[string]map[string]int, error)
	// QueuePlace says where queued job id waits, claimed with p's kinds and
	// limits: its place among its organization's queued jobs of those kinds
	// in the order ClaimJob takes them (1: next), and how many of them run
	// now against the organization's limit. A job not queued has Position
	// 0. ENOTFOUND when there is no such job.
	QueuePlace(ctx context.Context, id string, p ClaimParams) (QueuePlace, error)
}

// QueuePlace is where a queued job waits (Jobs.QueuePlace).
type QueuePlace struct {
	Position int // 1 for its organization's next job; 0 when not queued
	Running  int // its organization's jobs of the kinds running now
	Limit    int // its organization's limit; 0 for none
}

// AtLimit reports whether the job waits because its organization already
// runs as many jobs as its limit allows.
func (q QueuePlace) AtLimit() bool { return q.Limit > 0 && q.Running >= q.Limit }

// KindWebhook is the job kind of a webhook delivery; its job's ID is the
// delivery's (msg_...).
const KindWebhook = "webhook"

// Webhooks stores organizations' webhook endpoints and the deliveries of
// their events. Deliveries are made in the transaction of the change they
// tell of (a transactional outbox): FinishUpdate (success, failure),
// PromoteDeployment (its update, success), FinishExport (completed,
// failed), CancelUpdate, CancelExport and DeleteProject (each update and
// export it cancels) each store, for every
// webhook of the organization that subscribes to the event
// (lectern.UpdateEvent, lectern.ExportEvent), one pending delivery whose
// payload is lectern.EventPayload(event, the time of the change, the
// record as GetUpdate or GetExport returns it after the change; an
// update's log left out), and its
// job (kind KindWebhook, due at once). A change that is refused stores
// none; webhooks created after the change get none.
type Webhooks interface {
	// CreateWebhook stores an endpoint; it sets ID (whk_) and CreatedAt
	// when empty. ENOTFOUND when the organization is missing or deleted.
	// When limit > 0 and the organization already has limit webhooks that
	// are not deleted, ECONFLICT, storing nothing: the count and the
	// insert are one transaction, so concurrent creates never pass it.
	CreateWebhook(ctx context.Context, w *lectern.Webhook, limit int) error
	// GetWebhook returns ENOTFOUND when the webhook is missing or deleted.
	GetWebhook(ctx context.Context, id string) (*lectern.Webhook, error)
	// ListWebhooks returns an organization's webhooks, newest first, one
	// page of them.
	ListWebhooks(ctx context.Context, orgID string, pg Page) ([]*lectern.Webhook, error)
	// DeleteWebhook removes a webhook at once (GetWebhook, ListWebhooks:
	// ENOTFOUND, absent; no new delivery) and ends its pending deliveries
	// canceled at at (EndedAt at, NextAttemptAt nil), their jobs done, in
	// one transaction; its deliveries stay readable. ENOTFOUND when
	// missing or already deleted.
	DeleteWebhook(ctx context.Context, id string, at time.Time) error
	// GetDelivery returns a delivery with its attempts, oldest first, and
	// its payload; ENOTFOUND when missing.
	GetDelivery(ctx context.Context, id string) (*lectern.Delivery, error)
	// ListDeliveries returns a webhook's deliveries (deleted webhook or
	// not), newest first, one page of them, with their attempts.
	ListDeliveries(ctx context.Context, webhookID string, pg Page) ([]*lectern.Delivery, error)
	// RecordAttempt appends attempt a to the leased delivery. With next
	// zero it ends the delivery (delivered when a.StatusCode is 2xx, else
	// failed; EndedAt a.At, NextAttemptAt nil) and its job is done;
	// otherwise the delivery stays pending with NextAttemptAt next and its
	// job is given back to the queue due at next (the attempt not
	// counted against MaxAttempts). ECONFLICT when the lease is lost
	// (also when the webhook was deleted meanwhile): nothing is recorded.
	RecordAttempt(ctx context.Context, lease Lease, a lectern.DeliveryAttempt, next time.Time) error
	// PruneDeliveries drops up to limit deliveries that ended (delivered,
	// failed or canceled) before t, with their jobs, and returns how many
	// it dropped; pending deliveries are kept whatever their age.
	PruneDeliveries(ctx context.Context, before time.Time, limit int) (int, error)
}

// IdempotencyRecord remembers the response to a POST sent with an
// Idempotency-Key.
type IdempotencyRecord struct {
	Scope       string // the organization ID: keys are per organization
	Key         string
	RequestHash string
	// Status is 0 while the first request is still being handled.
	Status    int
	Body      []byte
	Headers   map[string]string
	CreatedAt time.Time
}

// Idempotency stores Idempotency-Key records.
type Idempotency interface {
	// ReserveIdempotency stores rec when no record for (Scope, Key) exists
	// newer than notBefore and returns (nil, nil); otherwise it returns the
	// existing record, which may be still pending (Status 0).
	ReserveIdempotency(ctx context.Context, rec *IdempotencyRecord, notBefore time.Time) (*IdempotencyRecord, error)
	// CompleteIdempotency stores the response of a reserved record.
	CompleteIdempotency(ctx context.Context, scope, key string, status int, headers map[string]string, body []byte) error
	// DeleteIdempotency removes a reservation (the request failed before a
	// response worth replaying).
	DeleteIdempotency(ctx context.Context, scope, key string) error
	// PruneIdempotency deletes records created before t.
	PruneIdempotency(ctx context.Context, t time.Time) (int, error)
}

// RateLimits keeps token buckets in the database, so that every process
// sharing it draws on the same budget (the API's per-key rate limit when
// several API processes run).
type RateLimits interface {
	// TakeRateTokens refills the bucket named key at rate tokens per second,
	// up to burst, for the time since its last use (a new bucket starts
	// full; a clock that went back adds nothing), then takes up to want
	// whole tokens from it. It returns how many it took (0 to want) and the
	// tokens left after the take. Concurrent callers, in any process, never
	// take more than the bucket holds.
	TakeRateTokens(ctx context.Context, key string, want int, rate float64, burst int, now time.Time) (taken int, left float64, err error)
}

// LatestMigration returns the newest version among migration file names,
// whose base names start with their version ("migrations/0003_x.sql" is
// 3); 0 when there are none.
func LatestMigration(names []string) int {
	latest := 0
	for _, name := range names {
		if v, err := MigrationVersion(name); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}

// MigrationVersion returns the version of a migration file, the number
// its base name starts with ("migrations/0003_x.sql" is 3), or an error
// naming the file.
func MigrationVersion(name string) (int, error) {
	base := name[strings.LastIndexByte(name, '/')+1:]
	v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
	if err != nil {
		return 0, fmt.Errorf("migration %s: bad version prefix", base)
	}
	return v, nil
}

// CheckSchemaVersion returns an error when a database's schema (the newest
// migration applied to it, dbVersion) is newer than the newest migration
// this binary knows: a newer release migrated it, and this one would read
// and write tables it does not understand.
func CheckSchemaVersion(dbVersion, known int) error {
	if dbVersion > known {
		return lectern.Errorf(lectern.EINVALID,
			"the database is at schema version %d, newer than this lectern knows (%d): it was upgraded by a newer release; run that release or a later one", dbVersion, known)
	}
	return nil
}
