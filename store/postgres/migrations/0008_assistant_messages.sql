-- The questions readers ask the docs assistant and its answers, kept for
-- analytics (lectern.AssistantMessage, within its bounds): citations is
-- the JSON array of the answer's citations, in order; helpful is NULL
-- until the reader says. A deleted project's messages are dropped by
-- PurgeProject, old ones by PruneAssistantMessages. Lists are read newest
-- first (created_at DESC, id DESC, IDs compared bytewise).
CREATE TABLE assistant_messages (
  id         text PRIMARY KEY,
  org_id     text NOT NULL,
  project_id text NOT NULL REFERENCES projects(id),
  domain     text NOT NULL,
  source     text NOT NULL,
  question   text NOT NULL,
  answer     text NOT NULL,
  citations  jsonb NOT NULL DEFAULT '[]',
  found      boolean NOT NULL,
  model      text NOT NULL,
  helpful    boolean,
  created_at timestamptz NOT NULL
);
CREATE INDEX assistant_messages_project_created ON assistant_messages(project_id, created_at, id COLLATE "C");
CREATE INDEX assistant_messages_created ON assistant_messages(created_at, id COLLATE "C");
