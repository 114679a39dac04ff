-- Projects and organizations are deleted in two steps: at once for every
-- reader (deleted_at set, NULL while not deleted; a project's domains
-- freed), then their records are dropped by the janitor. Lists are read
-- newest first (created_at DESC, id DESC, IDs compared bytewise), a page
-- at a time.
ALTER TABLE projects ADD COLUMN deleted_at timestamptz;
ALTER TABLE orgs ADD COLUMN deleted_at timestamptz;
CREATE INDEX projects_deleted ON projects(deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX orgs_deleted ON orgs(deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX updates_project_created ON updates(project_id, created_at, id COLLATE "C");
-- It serves the export quota's count as well as the list.
DROP INDEX exports_org_created;
CREATE INDEX exports_org_created ON exports(org_id, created_at, id COLLATE "C");
