-- Web analytics of live docs sites (store.Analytics). Days are dates (UTC),
-- weeks their Monday's date; visitors are their hashes' 16 bytes; kinds
-- and keys compare bytewise (COLLATE "C"), as every store orders them. No
-- foreign keys: RecordAnalytics key-share locks the projects of a batch
-- once, and PurgeProject drops a project's rows.
--
-- Raw events, kept until PruneAnalytics drops them (rawBefore). id orders
-- the comments' list among equal times.
CREATE TABLE analytics_events (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id text NOT NULL,
  at         timestamptz NOT NULL,
  kind       text COLLATE "C" NOT NULL,
  path       text NOT NULL,
  referrer   text NOT NULL,
  visitor    bytea NOT NULL,
  query      text NOT NULL,
  results    integer NOT NULL,
  clicked    text NOT NULL,
  helpful    boolean,
  comment    text NOT NULL
);
-- Pruning and purging (per project), and the comments' list.
CREATE INDEX analytics_events_project_at ON analytics_events(project_id, at);
CREATE INDEX analytics_events_comments ON analytics_events(project_id, at, id) WHERE comment <> '';

-- The daily aggregates: per project, kind (pageview, search, feedback,
-- visit, referrer), day and key; the same summed per week, so that a long
-- range reads each key's whole weeks in one row each; and per day over
-- the keys (the totals), so that a range's days read one row each. The
-- three are written in one transaction.
CREATE TABLE analytics_daily (
  project_id text NOT NULL,
  kind       text COLLATE "C" NOT NULL,
  day        date NOT NULL,
  key        text COLLATE "C" NOT NULL,
  n          bigint NOT NULL,
  visitors   bigint NOT NULL,
  clicks     bigint NOT NULL,
  zero       bigint NOT NULL,
  yes        bigint NOT NULL,
  no         bigint NOT NULL,
  PRIMARY KEY (project_id, kind, day, key)
);
CREATE TABLE analytics_weekly (
  project_id text NOT NULL,
  kind       text COLLATE "C" NOT NULL,
  week       date NOT NULL,
  key        text COLLATE "C" NOT NULL,
  n          bigint NOT NULL,
  visitors   bigint NOT NULL,
  clicks     bigint NOT NULL,
  zero       bigint NOT NULL,
  yes        bigint NOT NULL,
  no         bigint NOT NULL,
  PRIMARY KEY (project_id, kind, week, key)
);
CREATE TABLE analytics_totals (
  project_id text NOT NULL,
  kind       text COLLATE "C" NOT NULL,
  day        date NOT NULL,
  n          bigint NOT NULL,
  visitors   bigint NOT NULL,
  clicks     bigint NOT NULL,
  zero       bigint NOT NULL,
  yes        bigint NOT NULL,
  no         bigint NOT NULL,
  PRIMARY KEY (project_id, kind, day)
);

-- The visitors each aggregate has counted, so that a visitor counts once
-- a day per aggregate across batches and processes (INSERT ... ON
-- CONFLICT DO NOTHING decides); pruned with the raw events.
CREATE TABLE analytics_day_visitors (
  project_id text NOT NULL,
  day        date NOT NULL,
  kind       text COLLATE "C" NOT NULL,
  key        text COLLATE "C" NOT NULL,
  visitor    bytea NOT NULL,
  PRIMARY KEY (project_id, day, kind, key, visitor)
);

-- Each day's salt of the visitors' hashes; those of days before
-- yesterday are dropped.
CREATE TABLE analytics_salts (
  day  date PRIMARY KEY,
  salt bytea NOT NULL
);
