-- A project's pages load the repository's .js files only when this is set
-- (lectern admin project create --custom-scripts).
ALTER TABLE projects ADD COLUMN custom_scripts INTEGER NOT NULL DEFAULT 0;
