-- Dashboard accounts (lectern.User), their sessions and one-time sign-in
-- tokens. Emails are normalized (lower-case) and unique on the server.
-- password_hash is argon2id in PHC form ('' until set); sessions and
-- sign-in tokens are kept as the SHA-256 of their token only. A user's
-- sessions and tokens go with it (ON DELETE CASCADE); DeleteOrg drops its
-- users. NULL times are never.
CREATE TABLE users (
  id              text PRIMARY KEY,
  org_id          text NOT NULL REFERENCES orgs(id),
  email           text NOT NULL UNIQUE,
  role            text NOT NULL,
  password_hash   text NOT NULL DEFAULT '',
  created_at      timestamptz NOT NULL,
  password_set_at timestamptz,
  failed_sign_ins integer NOT NULL DEFAULT 0,
  locked_until    timestamptz
);
CREATE INDEX users_org ON users(org_id, created_at, id COLLATE "C");

CREATE TABLE sessions (
  id           text PRIMARY KEY,
  hash         bytea NOT NULL UNIQUE,
  user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  org_id       text NOT NULL,
  csrf         text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expires ON sessions(expires_at);

CREATE TABLE signin_tokens (
  hash       bytea PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX signin_tokens_user ON signin_tokens(user_id);
CREATE INDEX signin_tokens_expires ON signin_tokens(expires_at);
