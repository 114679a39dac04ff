-- Web analytics of live docs sites (store.Analytics). Days are integer
-- days since the Unix epoch (UTC dates); at is integer microseconds since
-- the epoch, UTC; visitors are their hashes' 16 bytes. No foreign keys:
-- RecordAnalytics checks the projects once per batch, in its
-- transaction, and PurgeProject drops a project's rows.
--
-- Raw events, kept until PruneAnalytics drops them (rawBefore). id orders
-- the comments' list among equal times.
CREATE TABLE analytics_events (
  id         INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  at         INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  path       TEXT NOT NULL,
  referrer   TEXT NOT NULL,
  visitor    BLOB NOT NULL,
  query      TEXT NOT NULL,
  results    INTEGER NOT NULL,
  clicked    TEXT NOT NULL,
  helpful    INTEGER,
  comment    TEXT NOT NULL
);
-- Pruning and purging (per project), and the comments' list.
CREATE INDEX analytics_events_project_at ON analytics_events(project_id, at);
CREATE INDEX analytics_events_comments ON analytics_events(project_id, at, id) WHERE comment <> '';

-- The daily aggregates: per project, kind (pageview, search, feedback,
-- visit, referrer), day and key. Reads take one project's kind over a
-- range of days: the primary key's order, rows stored in it.
CREATE TABLE analytics_daily (
  project_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  day        INTEGER NOT NULL,
  key        TEXT NOT NULL,
  n          INTEGER NOT NULL,
  visitors   INTEGER NOT NULL,
  clicks     INTEGER NOT NULL,
  zero       INTEGER NOT NULL,
  yes        INTEGER NOT NULL,
  no         INTEGER NOT NULL,
  PRIMARY KEY (project_id, kind, day, key)
) WITHOUT ROWID;

-- The same aggregates summed per week (week: its Monday's day), so that a
-- long range reads each key's whole weeks in one row each, and per day
-- over the keys (the totals), so that a range's days read one row each.
-- Both are written with the daily aggregates, in their transaction.
CREATE TABLE analytics_weekly (
  project_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  week       INTEGER NOT NULL,
  key        TEXT NOT NULL,
  n          INTEGER NOT NULL,
  visitors   INTEGER NOT NULL,
  clicks     INTEGER NOT NULL,
  zero       INTEGER NOT NULL,
  yes        INTEGER NOT NULL,
  no         INTEGER NOT NULL,
  PRIMARY KEY (project_id, kind, week, key)
) WITHOUT ROWID;
CREATE TABLE analytics_totals (
  project_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  day        INTEGER NOT NULL,
  n          INTEGER NOT NULL,
  visitors   INTEGER NOT NULL,
  clicks     INTEGER NOT NULL,
  zero       INTEGER NOT NULL,
  yes        INTEGER NOT NULL,
  no         INTEGER NOT NULL,
  PRIMARY KEY (project_id, kind, day)
) WITHOUT ROWID;

-- The visitors each aggregate has counted, so that a visitor counts once
-- a day per aggregate across batches; pruned with the raw events.
CREATE TABLE analytics_day_visitors (
  project_id TEXT NOT NULL,
  day        INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  key        TEXT NOT NULL,
  visitor    BLOB NOT NULL,
  PRIMARY KEY (project_id, day, kind, key, visitor)
) WITHOUT ROWID;

-- Each day's salt of the visitors' hashes; those of days before
-- yesterday are dropped.
CREATE TABLE analytics_salts (
  day  INTEGER PRIMARY KEY,
  salt BLOB NOT NULL
);
