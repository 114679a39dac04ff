// Package lectern holds Lectern's domain types: organizations, projects, API
// keys, deployment updates, static export jobs and bundles, and the coded
// Error that every layer returns. It does no I/O.
package lectern

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Plan is an organization's subscription tier.
type Plan string

// The plans. Static export needs PlanEnterprise.
const (
	PlanFree       Plan = "free"
	PlanPro        Plan = "pro"
	PlanEnterprise Plan = "enterprise"
)

// ParsePlan returns the plan named s, or an EINVALID error naming the valid plans.
func ParsePlan(s string) (Plan, error) {
	switch p := Plan(s); p {
	case PlanFree, PlanPro, PlanEnterprise:
		return p, nil
	}
	return "", Errorf(EINVALID, "unknown plan %q: use free, pro or enterprise", s)
}

// AllowsStaticExport reports whether the plan includes static export.
func (p Plan) AllowsStaticExport() bool { return p == PlanEnterprise }

// DeploymentType says where a project's site is served.
type DeploymentType string

// The deployment types of the spec's feature table.
const (
	DeploymentCloud        DeploymentType = "cloud"
	DeploymentClientHosted DeploymentType = "client-hosted"
	DeploymentAirGapped    DeploymentType = "air-gapped"
)

// ParseDeploymentType returns the type named s, or an EINVALID error.
func ParseDeploymentType(s string) (DeploymentType, error) {
	switch t := DeploymentType(s); t {
	case DeploymentCloud, DeploymentClientHosted, DeploymentAirGapped:
		return t, nil
	}
	return "", Errorf(EINVALID, "unknown deployment type %q: use cloud, client-hosted or air-gapped", s)
}

// Organization owns projects and API keys.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Plan      Plan      `json:"plan"`
	CreatedAt time.Time `json:"createdAt"`
}

// Project is one documentation site built from a branch of a git repository.
type Project struct {
	ID             string         `json:"id"`
	OrgID          string         `json:"orgId"`
	Name           string         `json:"name"`
	RepoURL        string         `json:"repoUrl"`
	Branch         string         `json:"branch"`
	DocsRoot       string         `json:"docsRoot"`
	Domains        []string       `json:"domains"`
	DeploymentType DeploymentType `json:"deploymentType"`
	// CustomScripts makes every page of the site load the repository's .js
	// files, as Mintlify does; off, the site runs none of them.
	CustomScripts bool `json:"customScripts"`
	// LiveDeploymentID is the deployment served for the project's domains;
	// empty until the first successful update.
	LiveDeploymentID string    `json:"liveDeploymentId,omitempty"`
	CreatedAt        time.Time `json:"createdAt"`
	// RepoCredentials are the credentials git uses for RepoURL, sealed
	// with the secret key (package secrets); empty when there are none.
	// They are never printed: JSON shows only whether there are some.
	RepoCredentials string `json:"-"`
	// DeployKey is the private half of the project's SSH deploy key (an
	// OpenSSH ed25519 key), sealed with the secret key; empty when it has
	// none. It is never printed: JSON shows only whether there is one.
	DeployKey string `json:"-"`
	// KnownHosts pins the SSH host keys of the repository's host
	// (known_hosts lines): given by the operator, or learned on the first
	// fetch over SSH.
	KnownHosts string `json:"knownHosts,omitempty"`
}

// MarshalJSON adds "repoCredentials": whether the project has repository
// credentials (never the credentials).
func (p Project) MarshalJSON() ([]byte, error) {
	type plain Project
	return json.Marshal(struct {
		plain
		HasRepoCredentials bool `json:"repoCredentials"`
		HasDeployKey       bool `json:"deployKey"`
	}{plain(p), p.RepoCredentials != "", p.DeployKey != ""})
}

// APIKey is the stored form of an admin API key: never the key itself.
type APIKey struct {
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	Name  string `json:"name"`
	// Hint is the key's first characters, enough to recognise it in a list.
	Hint       string     `json:"hint"`
	Hash       []byte     `json:"-"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
}

// UpdateStatus is the state of a deployment update.
type UpdateStatus string

// The update states. Queued moves to in_progress, superseded or canceled;
// in_progress moves to success, failure or canceled.
const (
	UpdateQueued     UpdateStatus = "queued"
	UpdateInProgress UpdateStatus = "in_progress"
	UpdateSuccess    UpdateStatus = "success"
	UpdateFailure    UpdateStatus = "failure"
	UpdateSuperseded UpdateStatus = "superseded"
	UpdateCanceled   UpdateStatus = "canceled"
)

// Terminal reports whether no further transition can happen.
func (s UpdateStatus) Terminal() bool {
	return s == UpdateSuccess || s == UpdateFailure || s == UpdateSuperseded || s == UpdateCanceled
}

// Commit identifies the source revision an update built.
type Commit struct {
	SHA     string `json:"sha"`
	Ref     string `json:"ref"`
	Message string `json:"message"`
}

// Update is one deployment update of a project: fetch, render, publish.
type Update struct {
	ID           string       `json:"statusId"`
	ProjectID    string       `json:"projectId"`
	OrgID        string       `json:"-"`
	Status       UpdateStatus `json:"status"`
	Source       string       `json:"source"`
	CreatedAt    time.Time    `json:"createdAt"`
	StartedAt    *time.Time   `json:"startedAt"`
	EndedAt      *time.Time   `json:"endedAt"`
	Summary      string       `json:"summary"`
	Commit       *Commit      `json:"commit"`
	Logs         []string     `json:"logs"`
	SupersededBy string       `json:"supersededBy,omitempty"`
	DeploymentID string       `json:"-"`
	// Queue says where a queued update waits (set by the API, not stored).
	Queue *QueueInfo `json:"queue,omitempty"`
}

// Reasons a queued job waits (QueueInfo.Reason).
const (
	// WaitOrgLimit: its organization already runs as many jobs as its
	// limit allows (lectern serve --org-jobs).
	WaitOrgLimit = "organization_limit"
	// WaitWorkers: every worker is busy (the last free one of a process
	// is kept for an organization with nothing running), or its
	// organization's earlier jobs go first.
	WaitWorkers = "workers_busy"
)

// QueueInfo says where a queued update or export waits: its place among
// its organization's queued jobs (1: next; updates before exports), its
// organization's jobs running now and their limit (0: none), and why it
// waits.
type QueueInfo struct {
	Position int    `json:"position"`
	Running  int    `json:"running"`
	Limit    int    `json:"limit"`
	Reason   string `json:"reason"`
}

// Describe says where q's job waits, as the CLI and the dashboard show it:
// "2nd of your organization's jobs to start; the workers are busy".
func (q *QueueInfo) Describe() string {
	line := ordinal(q.Position) + " of your organization's jobs to start"
	if q.Reason == WaitOrgLimit {
		return line + fmt.Sprintf("; it runs %d at once already, its limit", q.Running)
	}
	return line + "; the workers are busy"
}

// ordinal writes n as 1st, 2nd, 3rd, 4th, 11th, 21st.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// Deployment is one published, immutable rendering of a project.
type Deployment struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	UpdateID  string    `json:"updateId"`
	Commit    Commit    `json:"commit"`
	PageCount int       `json:"pageCount"`
	CreatedAt time.Time `json:"createdAt"`
	// Live says whether it is its project's live deployment (set by
	// the API from the project, not stored).
	Live bool `json:"live"`
}

// ExportStatus is the state of a static export job.
type ExportStatus string

// The export states. Queued moves to running or canceled; running moves to
// completed, failed or canceled (and back to queued when its worker stops
// before finishing).
const (
	ExportQueued    ExportStatus = "queued"
	ExportRunning   ExportStatus = "running"
	ExportCompleted ExportStatus = "completed"
	ExportFailed    ExportStatus = "failed"
	ExportCanceled  ExportStatus = "canceled"
)

// Terminal reports whether no further transition can happen.
func (s ExportStatus) Terminal() bool {
	return s == ExportCompleted || s == ExportFailed || s == ExportCanceled
}

// ParseExportStatus returns the export state named s, or an EINVALID error.
func ParseExportStatus(s string) (ExportStatus, error) {
	switch st := ExportStatus(s); st {
	case ExportQueued, ExportRunning, ExportCompleted, ExportFailed, ExportCanceled:
		return st, nil
	}
	return "", Errorf(EINVALID, "unknown export status %q: use queued, running, completed, failed or canceled", s)
}

// JobError says why a job failed.
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ExportJob is one static export of a domain's live deployment.
type ExportJob struct {
	ID          string       `json:"jobId"`
	OrgID       string       `json:"-"`
	ProjectID   string       `json:"-"`
	Domain      string       `json:"domain"`
	BasePath    string       `json:"basePath,omitempty"`
	Status      ExportStatus `json:"status"`
	Progress    int          `json:"progress"`
	PageCount   int          `json:"pageCount"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
	CompletedAt *time.Time   `json:"completedAt"`
	Error       *JobError    `json:"error"`
	// Bundle is set once the archive is built.
	Bundle *Bundle `json:"-"`
	// Queue says where a queued export waits (set by the API, not stored).
	Queue *QueueInfo `json:"queue,omitempty"`
}

// Bundle is the archive of a completed export, stored once per job.
type Bundle struct {
	Key       string `json:"-"`
	FileName  string `json:"fileName"`
	SizeBytes int64  `json:"sizeBytes"`
	SHA256    string `json:"sha256"`
	Version   string `json:"version"`
}

// MaxNameLen is the most characters an organization's or a project's name
// may have.
const MaxNameLen = 200

// NormalizeName returns an organization's or a project's name without its
// surrounding space, or an EINVALID error when it is empty, longer than
// MaxNameLen characters or holds a control character.
func NormalizeName(s string) (string, error) {
	name := strings.TrimSpace(s)
	switch {
	case name == "":
		return "", Errorf(EINVALID, "must not be empty")
	case utf8.RuneCountInString(name) > MaxNameLen || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", Errorf(EINVALID, "must be at most %d characters, without control characters", MaxNameLen)
	}
	return name, nil
}
