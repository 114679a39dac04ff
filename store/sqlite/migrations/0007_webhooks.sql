-- Organizations' webhook endpoints and the deliveries of their events.
-- Deliveries are written in the transaction of the change they tell of (a
-- transactional outbox), each with a job of kind 'webhook' whose ID is the
-- delivery's. events_json is the JSON array of the events a webhook takes;
-- attempts_json the JSON array of a delivery's attempts, oldest first.
-- secret is sealed with the server's secret key. Times are integer
-- microseconds since the Unix epoch, UTC.
CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  url         TEXT NOT NULL,
  events_json TEXT NOT NULL DEFAULT '[]',
  secret      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  deleted_at  INTEGER
);
CREATE INDEX webhooks_org_created ON webhooks(org_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY,
  webhook_id      TEXT NOT NULL REFERENCES webhooks(id),
  org_id          TEXT NOT NULL,
  event           TEXT NOT NULL,
  status          TEXT NOT NULL,
  payload         TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER,
  ended_at        INTEGER,
  attempts_json   TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX webhook_deliveries_webhook_created ON webhook_deliveries(webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_org_created ON webhook_deliveries(org_id, created_at, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id) WHERE status = 'pending';
