-- Projects and organizations are deleted in two steps: at once for every
-- reader (deleted_at set, a project's domains freed), then their records
-- are dropped by the janitor. Lists are read newest first, a page at a time.
ALTER TABLE projects ADD COLUMN deleted_at INTEGER;
ALTER TABLE orgs ADD COLUMN deleted_at INTEGER;
CREATE INDEX updates_project_created ON updates(project_id, created_at, id);
CREATE INDEX projects_deleted ON projects(deleted_at) WHERE deleted_at IS NOT NULL;
