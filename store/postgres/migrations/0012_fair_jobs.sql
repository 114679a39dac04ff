-- Fair claiming between organizations (ClaimJob): each job names its
-- organization and a priority (0 for updates and webhook deliveries, 1 for
-- exports: an organization's updates go before its exports), and
-- org_claims remembers when each organization last had a job claimed, so
-- that organizations with as few jobs running are served in turn.
ALTER TABLE jobs ADD COLUMN org_id text NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN priority integer NOT NULL DEFAULT 0;
UPDATE jobs SET org_id = coalesce(
  (SELECT org_id FROM updates WHERE updates.id = jobs.id),
  (SELECT org_id FROM exports WHERE exports.id = jobs.id),
  (SELECT org_id FROM webhook_deliveries WHERE webhook_deliveries.id = jobs.id),
  '');
UPDATE jobs SET priority = 1 WHERE kind = 'export';
-- Queued jobs by organization, in the order an organization's jobs are
-- claimed; it also lists the organizations with queued jobs (a skip scan).
CREATE INDEX jobs_queue ON jobs(state, org_id, priority, created_at, id);
CREATE INDEX jobs_running ON jobs(state, lease_until, org_id);

CREATE TABLE org_claims (
  org_id     text PRIMARY KEY,
  claimed_at timestamptz NOT NULL
);
