-- Every change to what a domain resolves to (ResolveDomain: a domain added
-- or removed, a project's live deployment changed, a project deleted or
-- purged) is written down here by triggers, in the same transaction, so
-- that WatchSites finds the changes other processes made (it reads rows
-- after the last it saw). Only the last 10,000 are kept: a watch that
-- falls further behind starts again, forgetting everything.
CREATE TABLE site_changes (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL
);

CREATE TRIGGER domains_site_added AFTER INSERT ON domains BEGIN
  INSERT INTO site_changes(project_id) VALUES (NEW.project_id);
END;
CREATE TRIGGER domains_site_removed AFTER DELETE ON domains BEGIN
  INSERT INTO site_changes(project_id) VALUES (OLD.project_id);
END;
CREATE TRIGGER domains_site_moved AFTER UPDATE ON domains BEGIN
  INSERT INTO site_changes(project_id) VALUES (OLD.project_id);
  INSERT INTO site_changes(project_id) VALUES (NEW.project_id);
END;
CREATE TRIGGER projects_site_changed AFTER UPDATE OF live_deployment_id, deleted_at ON projects
  WHEN OLD.live_deployment_id IS NOT NEW.live_deployment_id OR OLD.deleted_at IS NOT NEW.deleted_at BEGIN
  INSERT INTO site_changes(project_id) VALUES (NEW.id);
END;
CREATE TRIGGER projects_site_purged AFTER DELETE ON projects BEGIN
  INSERT INTO site_changes(project_id) VALUES (OLD.id);
END;
CREATE TRIGGER site_changes_pruned AFTER INSERT ON site_changes BEGIN
  DELETE FROM site_changes WHERE seq <= NEW.seq - 10000;
END;
