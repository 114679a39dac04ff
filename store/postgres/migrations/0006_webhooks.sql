-- Webhooks: an organization's endpoints (deleted in one step, deleted_at
-- set, their deliveries kept readable) and the deliveries of its events,
-- stored in the transaction of the change they tell of (a transactional
-- outbox) with a job of kind 'webhook' of the same ID. A delivery's
-- payload is kept byte for byte (bytea: jsonb would reorder its keys);
-- its attempts are a JSON array, oldest first. Lists are read newest
-- first (created_at DESC, id DESC, IDs compared bytewise).
CREATE TABLE webhooks (
  id         text PRIMARY KEY,
  org_id     text NOT NULL REFERENCES orgs(id),
  url        text NOT NULL,
  events     text[] NOT NULL,
  secret     text NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX webhooks_org_created ON webhooks(org_id, created_at, id COLLATE "C") WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  webhook_id      text NOT NULL REFERENCES webhooks(id),
  org_id          text NOT NULL,
  event           text NOT NULL,
  status          text NOT NULL,
  payload         bytea NOT NULL,
  created_at      timestamptz NOT NULL,
  next_attempt_at timestamptz,
  ended_at        timestamptz,
  attempts        jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX webhook_deliveries_webhook_created ON webhook_deliveries(webhook_id, created_at, id COLLATE "C");
CREATE INDEX webhook_deliveries_org_created ON webhook_deliveries(org_id, created_at, id COLLATE "C");
