package client

import "time"

// Project is a documentation site built from a branch of a git
// repository (schema Project).
type Project struct {
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	Name  string `json:"name"`
	// RepoURL is the repository, any user name in it shown as ***.
	RepoURL  string `json:"repoUrl"`
	Branch   string `json:"branch"`
	DocsRoot string `json:"docsRoot"`
	// Domains are the domains the live site is served on, in order.
	Domains []string `json:"domains"`
	// DeploymentType is cloud, client-hosted or air-gapped.
	DeploymentType string `json:"deploymentType"`
	// CustomScripts says whether pages load the repository's .js files.
	CustomScripts bool `json:"customScripts"`
	// LiveDeploymentID is empty before the first successful update.
	LiveDeploymentID string `json:"liveDeploymentId,omitempty"`
	// LiveDeployment is set by Project and UpdateProject only.
	LiveDeployment *Deployment `json:"liveDeployment,omitempty"`
	CreatedAt      time.Time   `json:"createdAt"`
	// RepoCredentials says whether credentials for the repository are
	// stored (they are never shown).
	RepoCredentials bool `json:"repoCredentials"`
	// DeployKey says whether it has an SSH deploy key.
	DeployKey bool `json:"deployKey"`
	// KnownHosts are the SSH host keys pinned for its repository.
	KnownHosts string `json:"knownHosts,omitempty"`
}

// Deployment is one published, immutable rendering of a project (schema
// Deployment).
type Deployment struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	UpdateID  string    `json:"updateId"`
	Commit    Commit    `json:"commit"`
	PageCount int       `json:"pageCount"`
	CreatedAt time.Time `json:"createdAt"`
	// Live says whether the project's domains serve it.
	Live bool `json:"live"`
}

// ProjectPatch is the body of UpdateProject (schema ProjectPatch): the
// settings to change; nil fields stay as they are.
type ProjectPatch struct {
	Name *string `json:"name,omitempty"`
	// RepoURL is an https:// or http:// URL without credentials.
	RepoURL  *string `json:"repoUrl,omitempty"`
	Branch   *string `json:"branch,omitempty"`
	DocsRoot *string `json:"docsRoot,omitempty"`
	// Domains replace the project's domains.
	Domains        []string `json:"domains,omitempty"`
	DeploymentType *string  `json:"deploymentType,omitempty"`
}

// ListOptions selects a page of a list: at most Limit records (0 for the
// server's default, 20; at most 100), from Cursor (a previous page's
// NextCursor; "" for the newest).
type ListOptions struct {
	Limit  int
	Cursor string
}

// ExportListOptions selects a page of export jobs, those of Domain and in
// Status when they are set.
type ExportListOptions struct {
	ListOptions
	Domain string
	Status ExportState
}

// Page is one page of a list, newest first (schemas ProjectPage,
// UpdatePage, DeploymentPage, ExportJobPage).
type Page[T any] struct {
	Items []T `json:"items"`
	// NextCursor reads the next page (ListOptions.Cursor); nil on the
	// last page.
	NextCursor *string `json:"nextCursor"`
}
