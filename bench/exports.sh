#!/usr/bin/env bash
# Export throughput across processes: one API process (--role api) and two
# worker processes (--role worker, --workers WORKERS each, default 2) on one
# store. COUNT small exports (default 200; a 3-page site, one domain each)
# are queued through the API while no worker runs; then both workers start,
# and the time from their start (start-up included) to the last export done
# gives exports/min. Measured in the same run on:
#
#   - SQLite: the embedded default, all three processes on one data folder
#     (one database file, one blob folder);
#   - PostgreSQL with S3 blobs (BENCH_S3_URL, else TEST_S3_URL; credentials
#     from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), skipped without one;
#   - PostgreSQL with the blob folder shared by the processes, to tell the
#     database's share from the object store's.
#
# PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local
# postgres://postgres@127.0.0.1:5432/test; each run uses a schema of its own,
# dropped at the end. SKIP_POSTGRES=1 measures SQLite only.
# Needs curl, jq and psql.
set -euo pipefail
cd "$(dirname "$0")/.."
for c in curl jq git; do command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }; done
COUNT=${COUNT:-200}
WORKERS=${WORKERS:-2}
PGURL=${BENCH_DATABASE_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}}
S3URL=${BENCH_S3_URL:-${TEST_S3_URL:-}}
work=$(mktemp -d)
schemas=()
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  for s in "${schemas[@]}"; do psql "$PGURL" -qc "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
ms() { date +%s%3N; }

go build -o "$work/lectern" ./cmd/lectern
L="$work/lectern"
# The secret key every process shares (required on PostgreSQL and S3).
export LECTERN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"

# A small site: three pages.
mkdir "$work/repo"
( cd "$work/repo" && git init -q -b main &&
  printf '{"name":"Bench","navigation":{"groups":[{"group":"G","pages":["index","quickstart","guide"]}]}}' > docs.json &&
  printf -- '---\ntitle: Home\n---\n\nWelcome to the **bench** docs.\n' > index.mdx &&
  printf -- '---\ntitle: Quickstart\n---\n\n## Install\n\n```sh\nbench install\n```\n' > quickstart.mdx &&
  printf -- '---\ntitle: Guide\n---\n\n<Note>A note.</Note>\n\nSome words about the product.\n' > guide.mdx &&
  git add -A && git -c user.name=b -c user.email=b@b commit -qm init )

# launch NAME PORT ROLE STORAGE-FLAGS...: starts a process in the background.
launch() {
  local name=$1 port=$2 role=$3; shift 3
  "$L" serve "$@" --role "$role" --addr "127.0.0.1:$port" --workers "$WORKERS" --exports-per-hour 0 \
    --rate-limit 1000000 --rate-burst 1000000 2>"$work/$name.log" &
}
# healthy NAME PORT: waits for the process's /healthz.
healthy() {
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$2/healthz" >/dev/null && return; sleep 0.05; done
  echo "$1 did not start:" >&2; cat "$work/$1.log" >&2; exit 1
}

# bench NAME PORT STORAGE-FLAGS...: one API process on the storage and a
# worker that builds the site; then, with no worker running, COUNT exports
# are queued through the API, two worker processes are started, and the
# time from their start to the last export done gives exports/min.
bench() {
  local name=$1 port=$2; shift 2
  local api="http://127.0.0.1:$port" tag="b$port"
  local ORG PRJ KEY domains=() pids=()
  ORG=$($L admin "$@" org create --name Bench --plan enterprise | tail -1)
  for i in $(seq -w 1 "$COUNT"); do domains+=(--domain "e$i.$tag.bench.test"); done
  PRJ=$($L admin "$@" project create --org "$ORG" --name b --repo "$work/repo" "${domains[@]}" | tail -1)
  KEY=$($L admin "$@" key create --org "$ORG" --name bench | tail -1)
  launch "$tag-api" "$port" api "$@"; pids+=($!)
  launch "$tag-builder" $((port + 3)) worker "$@"
  local builder=$!
  healthy "$tag-api" "$port"; healthy "$tag-builder" $((port + 3))
  local H="Authorization: Bearer $KEY"

  local UPD st
  UPD=$(curl -sf -X POST -H "$H" "$api/v1/project/update/$PRJ" | jq -r .statusId)
  for _ in $(seq 600); do
    st=$(curl -sf -H "$H" "$api/v1/project/update-status/$UPD" | jq -r .status)
    [ "$st" = queued ] || [ "$st" = in_progress ] || break
    sleep 0.1
  done
  [ "$st" = success ] || { echo "$name: update ended $st" >&2; exit 1; }
  kill "$builder"; wait "$builder" 2>/dev/null || true

  # Queue every export (32 requests in flight) while no worker runs.
  seq -w 1 "$COUNT" | xargs -P 32 -I{} curl -sf -X POST -H "$H" -H 'Content-Type: application/json' \
    -d "{\"domain\":\"e{}.$tag.bench.test\"}" "$api/v1/static-export/jobs" | jq -r .jobId >"$work/$tag.jobs"
  if [ "$(grep -c '^exp_' "$work/$tag.jobs")" != "$COUNT" ]; then
    echo "$name: not every export was queued" >&2; exit 1
  fi

  # Start two workers; wait until the store counts every export done.
  local t0 t1 ndone=0
  t0=$(ms)
  launch "$tag-worker-1" $((port + 1)) worker "$@"; pids+=($!)
  launch "$tag-worker-2" $((port + 2)) worker "$@"; pids+=($!)
  healthy "$tag-worker-1" $((port + 1)); healthy "$tag-worker-2" $((port + 2))
  for _ in $(seq 6000); do
    ndone=$(curl -sf "http://127.0.0.1:$((port + 1))/metrics" | awk '/^lectern_jobs\{kind="export",state="done"\}/ {print $2}')
    [ "${ndone:-0}" -ge "$COUNT" ] && break
    sleep 0.05
  done
  t1=$(ms)
  [ "${ndone:-0}" -ge "$COUNT" ] || { echo "$name: only $ndone of $COUNT exports done" >&2; exit 1; }

  # Every export completed, each run once (a worker counts a run just
  # after recording its end).
  local runs completed per1 per2
  for _ in $(seq 40); do
    runs=$(for p in $((port + 1)) $((port + 2)); do curl -sf "http://127.0.0.1:$p/metrics"; done |
      awk '/^lectern_job_runs_total\{kind="export",outcome="done"\}/ {n += $2} END {print n + 0}')
    [ "$runs" -ge "$COUNT" ] && break
    sleep 0.05
  done
  completed=$(xargs -P 16 -I{} curl -sf -H "$H" "$api/v1/static-export/jobs/{}" <"$work/$tag.jobs" | jq -r .status | grep -c '^completed$' || true)
  per1=$(grep -c 'msg="job finished" job=exp_' "$work/$tag-worker-1.log" || true)
  per2=$(grep -c 'msg="job finished" job=exp_' "$work/$tag-worker-2.log" || true)
  local secs rate
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 1000}')
  rate=$(awk -v n="$COUNT" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", n * 60000 / (b - a)}')
  printf '%-26s %6s exports/min   %d exports in %5ss   runs %d (worker 1: %d, worker 2: %d)\n' \
    "$name" "$rate" "$COUNT" "$secs" "$runs" "$per1" "$per2"
  [ "$runs" = "$COUNT" ] && [ "$completed" = "$COUNT" ] ||
    { echo "$name: $runs export runs and $completed completed for $COUNT exports" >&2; exit 1; }
  kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
}

echo "$COUNT exports of a 3-page site queued at once, then 2 worker processes x --workers $WORKERS; $(nproc) CPUs, load $(cut -d" " -f1 /proc/loadavg)"
bench "SQLite + blob folder" 18300 --data-dir "$work/sqlite"

if [ -n "${SKIP_POSTGRES:-}" ]; then exit 0; fi
command -v psql >/dev/null || { echo "psql is not installed (SKIP_POSTGRES=1 to measure SQLite only)" >&2; exit 1; }
case "$PGURL" in *\?*) sep='&' ;; *) sep='?' ;; esac
# pgdsn NAME: a schema of this run's own; sets DSN to select it.
pgdsn() {
  local s="lectern_bench_exports_$$_$1"
  psql "$PGURL" -qc "CREATE SCHEMA $s" >/dev/null || { echo "PostgreSQL is not reachable (SKIP_POSTGRES=1 to measure SQLite only)" >&2; exit 1; }
  schemas+=("$s")
  DSN="${PGURL}${sep}search_path=$s"
}
if [ -n "$S3URL" ]; then
  pgdsn s3
  bench "PostgreSQL + S3" 18310 --data-dir "$work/pg-s3" --database-url "$DSN" --blob-url "$S3URL"
else
  echo "PostgreSQL + S3: skipped (no BENCH_S3_URL or TEST_S3_URL)"
fi
pgdsn file
bench "PostgreSQL + blob folder" 18320 --data-dir "$work/pg-file" --database-url "$DSN"
