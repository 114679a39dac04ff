-- Token buckets shared by the processes on this database (API rate limits).
-- tokens is what the bucket held at updated_at (microseconds, UTC); taken is
-- what the last take got, returned to its caller.
CREATE TABLE rate_buckets (
  key        TEXT PRIMARY KEY,
  tokens     REAL NOT NULL,
  taken      INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
