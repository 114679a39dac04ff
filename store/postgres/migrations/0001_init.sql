-- Lectern schema, version 1, for PostgreSQL. Times are timestamptz (UTC,
-- microseconds), as the conformance suite expects of every store.
CREATE TABLE orgs (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  plan       text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE projects (
  id                 text PRIMARY KEY,
  org_id             text NOT NULL REFERENCES orgs(id),
  name               text NOT NULL,
  repo_url           text NOT NULL,
  branch             text NOT NULL,
  docs_root          text NOT NULL,
  deployment_type    text NOT NULL,
  live_deployment_id text,
  created_at         timestamptz NOT NULL
);
CREATE INDEX projects_org ON projects(org_id, created_at);

CREATE TABLE domains (
  domain     text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  position   integer NOT NULL
);
CREATE INDEX domains_project ON domains(project_id);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  org_id       text NOT NULL REFERENCES orgs(id),
  name         text NOT NULL,
  hint         text NOT NULL,
  hash         bytea NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_org ON api_keys(org_id, created_at);

CREATE TABLE deployments (
  id             text PRIMARY KEY,
  project_id     text NOT NULL REFERENCES projects(id),
  update_id      text NOT NULL,
  commit_sha     text NOT NULL,
  commit_ref     text NOT NULL,
  commit_message text NOT NULL,
  page_count     integer NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX deployments_project ON deployments(project_id, created_at);

CREATE TABLE updates (
  id            text PRIMARY KEY,
  project_id    text NOT NULL REFERENCES projects(id),
  org_id        text NOT NULL,
  status        text NOT NULL,
  source        text NOT NULL,
  created_at    timestamptz NOT NULL,
  started_at    timestamptz,
  ended_at      timestamptz,
  summary       text NOT NULL DEFAULT '',
  commit_json   text,
  logs_json     text NOT NULL DEFAULT '[]',
  superseded_by text,
  deployment_id text
);
CREATE INDEX updates_project_status ON updates(project_id, status);

CREATE TABLE exports (
  id             text PRIMARY KEY,
  org_id         text NOT NULL,
  project_id     text NOT NULL,
  domain         text NOT NULL,
  base_path      text NOT NULL DEFAULT '',
  status         text NOT NULL,
  progress       integer NOT NULL DEFAULT 0,
  page_count     integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  completed_at   timestamptz,
  error_code     text,
  error_message  text,
  bundle_key     text,
  bundle_file    text,
  bundle_size    bigint,
  bundle_sha256  text,
  bundle_version text
);
CREATE UNIQUE INDEX exports_active_domain ON exports(domain) WHERE status IN ('queued', 'running');
CREATE INDEX exports_org_created ON exports(org_id, created_at);
CREATE INDEX exports_created ON exports(created_at);

CREATE TABLE jobs (
  id           text PRIMARY KEY,
  kind         text NOT NULL,
  group_key    text NOT NULL DEFAULT '',
  state        text NOT NULL,
  run_at       timestamptz NOT NULL,
  attempt      integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  lease_owner  text,
  lease_token  bigint NOT NULL DEFAULT 0,
  lease_until  timestamptz,
  last_error   text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
-- Claims scan the jobs that are not done, oldest first.
CREATE INDEX jobs_available ON jobs(created_at, id) WHERE state <> 'done';
CREATE INDEX jobs_group ON jobs(group_key, state);

CREATE TABLE idempotency (
  scope        text NOT NULL,
  key          text NOT NULL,
  request_hash text NOT NULL,
  status       integer NOT NULL DEFAULT 0,
  headers_json text NOT NULL DEFAULT '{}',
  body         bytea,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_created ON idempotency(created_at);

CREATE TABLE secrets (
  name       text PRIMARY KEY,
  value      bytea NOT NULL,
  created_at timestamptz NOT NULL
);

-- Token buckets shared by every API process (rate limits). tokens is what
-- the bucket held at updated_at (microseconds since the Unix epoch); taken
-- is what the last take got, returned to its caller.
CREATE TABLE rate_buckets (
  key        text PRIMARY KEY,
  tokens     double precision NOT NULL,
  taken      integer NOT NULL,
  updated_at bigint NOT NULL
);
