-- Every change to what a domain resolves to (ResolveDomain: a domain added
-- or removed, a project's live deployment changed, a project deleted or
-- purged) is told to the processes sharing the database with NOTIFY, at
-- commit, so that each drops what it kept of the project's live sites at
-- once (WatchSites). The payload is the project's id; the channel is the
-- schema's own, lectern_sites_ and the first 16 hex digits of the md5 of
-- the schema's name, since channels are shared by the whole database.
CREATE FUNCTION lectern_site_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  channel text := 'lectern_sites_' || left(md5(current_schema()), 16);
BEGIN
  IF TG_TABLE_NAME = 'domains' THEN
    IF TG_OP <> 'INSERT' THEN
      PERFORM pg_notify(channel, OLD.project_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
      PERFORM pg_notify(channel, NEW.project_id);
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify(channel, OLD.id);
  ELSE
    PERFORM pg_notify(channel, NEW.id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER domains_site_changed AFTER INSERT OR UPDATE OR DELETE ON domains
  FOR EACH ROW EXECUTE FUNCTION lectern_site_changed();
CREATE TRIGGER projects_site_changed AFTER UPDATE OF live_deployment_id, deleted_at ON projects
  FOR EACH ROW WHEN (OLD.live_deployment_id IS DISTINCT FROM NEW.live_deployment_id
    OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION lectern_site_changed();
CREATE TRIGGER projects_site_purged AFTER DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION lectern_site_changed();
