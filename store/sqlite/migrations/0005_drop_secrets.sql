-- The link-signing key is derived from the secret key kept outside the
-- database (package secrets); the table that held it in clear in earlier
-- releases goes, with the key (secure_delete overwrites its pages).
DROP TABLE secrets;
