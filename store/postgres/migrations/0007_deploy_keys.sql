-- A project's SSH deploy key, its private half sealed with the secret key
-- (never in clear), and the known_hosts lines pinning its repository
-- host's keys: '' when it has none.
ALTER TABLE projects ADD COLUMN deploy_key text NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN known_hosts text NOT NULL DEFAULT '';
