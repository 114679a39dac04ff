-- A project's repository credentials, sealed with the secret key (never in
-- clear): '' when the repository needs none.
ALTER TABLE projects ADD COLUMN repo_credentials text NOT NULL DEFAULT '';
