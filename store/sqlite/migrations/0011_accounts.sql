-- Dashboard accounts (lectern.User), their sessions and one-time sign-in
-- tokens. Emails are normalized (lower-case) and unique on the server.
-- password_hash is argon2id in PHC form ('' until set); sessions and
-- sign-in tokens are kept as the SHA-256 of their token only. A user's
-- sessions and tokens go with it (ON DELETE CASCADE); DeleteOrg drops its
-- users. Times are integer microseconds since the Unix epoch, UTC; NULL
-- for never.
CREATE TABLE users (
  id              TEXT PRIMARY KEY,
  org_id          TEXT NOT NULL REFERENCES orgs(id),
  email           TEXT NOT NULL UNIQUE,
  role            TEXT NOT NULL,
  password_hash   TEXT NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  password_set_at INTEGER,
  failed_sign_ins INTEGER NOT NULL DEFAULT 0,
  locked_until    INTEGER
);
CREATE INDEX users_org ON users(org_id, created_at, id);

CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  hash         BLOB NOT NULL UNIQUE,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  org_id       TEXT NOT NULL,
  csrf         TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expires ON sessions(expires_at);

CREATE TABLE signin_tokens (
  hash       BLOB PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
);
CREATE INDEX signin_tokens_user ON signin_tokens(user_id);
CREATE INDEX signin_tokens_expires ON signin_tokens(expires_at);
