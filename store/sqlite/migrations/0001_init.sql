-- Lectern schema, version 1. Times are integer microseconds since the Unix epoch, UTC.
CREATE TABLE orgs (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  plan       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE projects (
  id                 TEXT PRIMARY KEY,
  org_id             TEXT NOT NULL REFERENCES orgs(id),
  name               TEXT NOT NULL,
  repo_url           TEXT NOT NULL,
  branch             TEXT NOT NULL,
  docs_root          TEXT NOT NULL,
  deployment_type    TEXT NOT NULL,
  live_deployment_id TEXT,
  created_at         INTEGER NOT NULL
);
CREATE INDEX projects_org ON projects(org_id, created_at);

CREATE TABLE domains (
  domain     TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  position   INTEGER NOT NULL
);
CREATE INDEX domains_project ON domains(project_id);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  org_id       TEXT NOT NULL REFERENCES orgs(id),
  name         TEXT NOT NULL,
  hint         TEXT NOT NULL,
  hash         BLOB NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at   INTEGER
);
CREATE INDEX api_keys_org ON api_keys(org_id, created_at);

CREATE TABLE deployments (
  id             TEXT PRIMARY KEY,
  project_id     TEXT NOT NULL REFERENCES projects(id),
  update_id      TEXT NOT NULL,
  commit_sha     TEXT NOT NULL,
  commit_ref     TEXT NOT NULL,
  commit_message TEXT NOT NULL,
  page_count     INTEGER NOT NULL,
  created_at     INTEGER NOT NULL
);
CREATE INDEX deployments_project ON deployments(project_id, created_at);

CREATE TABLE updates (
  id            TEXT PRIMARY KEY,
  project_id    TEXT NOT NULL REFERENCES projects(id),
  org_id        TEXT NOT NULL,
  status        TEXT NOT NULL,
  source        TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  started_at    INTEGER,
  ended_at      INTEGER,
  summary       TEXT NOT NULL DEFAULT '',
  commit_json   TEXT,
  logs_json     TEXT NOT NULL DEFAULT '[]',
  superseded_by TEXT,
  deployment_id TEXT
);
CREATE INDEX updates_project_status ON updates(project_id, status);

CREATE TABLE exports (
  id             TEXT PRIMARY KEY,
  org_id         TEXT NOT NULL,
  project_id     TEXT NOT NULL,
  domain         TEXT NOT NULL,
  base_path      TEXT NOT NULL DEFAULT '',
  status         TEXT NOT NULL,
  progress       INTEGER NOT NULL DEFAULT 0,
  page_count     INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  completed_at   INTEGER,
  error_code     TEXT,
  error_message  TEXT,
  bundle_key     TEXT,
  bundle_file    TEXT,
  bundle_size    INTEGER,
  bundle_sha256  TEXT,
  bundle_version TEXT
);
CREATE UNIQUE INDEX exports_active_domain ON exports(domain) WHERE status IN ('queued', 'running');
CREATE INDEX exports_org_created ON exports(org_id, created_at);
CREATE INDEX exports_created ON exports(created_at);

CREATE TABLE jobs (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL,
  group_key    TEXT NOT NULL DEFAULT '',
  state        TEXT NOT NULL,
  run_at       INTEGER NOT NULL,
  attempt      INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  lease_owner  TEXT,
  lease_token  INTEGER NOT NULL DEFAULT 0,
  lease_until  INTEGER,
  last_error   TEXT NOT NULL DEFAULT '',
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX jobs_available ON jobs(state, kind, run_at);
CREATE INDEX jobs_group ON jobs(group_key, state);

CREATE TABLE idempotency (
  scope        TEXT NOT NULL,
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status       INTEGER NOT NULL DEFAULT 0,
  headers_json TEXT NOT NULL DEFAULT '{}',
  body         BLOB,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_created ON idempotency(created_at);

CREATE TABLE secrets (
  name       TEXT PRIMARY KEY,
  value      BLOB NOT NULL,
  created_at INTEGER NOT NULL
);
