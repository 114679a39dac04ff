-- The questions readers ask the docs assistant and its answers, kept for
-- analytics (lectern.AssistantMessage, within its bounds). citations_json
-- is the JSON array of the answer's citations, in order; helpful is NULL
-- until the reader says, then 0 or 1. A deleted project's messages are
-- dropped by PurgeProject, old ones by PruneAssistantMessages. Times are
-- integer microseconds since the Unix epoch, UTC.
CREATE TABLE assistant_messages (
  id             TEXT PRIMARY KEY,
  org_id         TEXT NOT NULL,
  project_id     TEXT NOT NULL REFERENCES projects(id),
  domain         TEXT NOT NULL,
  source         TEXT NOT NULL,
  question       TEXT NOT NULL,
  answer         TEXT NOT NULL,
  citations_json TEXT NOT NULL DEFAULT '[]',
  found          INTEGER NOT NULL,
  model          TEXT NOT NULL,
  helpful        INTEGER,
  created_at     INTEGER NOT NULL
);
CREATE INDEX assistant_messages_project_created ON assistant_messages(project_id, created_at, id);
CREATE INDEX assistant_messages_created ON assistant_messages(created_at, id);
