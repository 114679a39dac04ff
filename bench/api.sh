#!/usr/bin/env bash
# Job-status polling throughput: 64 concurrent pollers (wrk) against
# GET /v1/static-export/jobs/{jobId} with auth, for a completed job and for
# one still running, beside a bare net/http
# handler returning the same JSON, measured in the same run, with the API on
# the embedded SQLite store and then on PostgreSQL (one API process each,
# run one after the other).
# Needs wrk (apt-get install wrk). Prints req/s and p50/p99 for each.
#
# PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local
# postgres://postgres@127.0.0.1:5432/test; the run uses a schema of its own,
# dropped at the end. SKIP_POSTGRES=1 measures SQLite only.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install wrk" >&2; exit 1; }
DUR=${DUR:-10s}
PGURL=${BENCH_DATABASE_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}}
schema="lectern_bench_$$"
work=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "${pg_ready:-}" ]; then psql "$PGURL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/bare" ./bench/bare

# A site to export.
mkdir "$work/repo"
( cd "$work/repo" && git init -q -b main &&
  printf '{"name":"Bench","navigation":{"groups":[{"group":"G","pages":["index"]}]}}' > docs.json &&
  printf -- '---\ntitle: Home\n---\nHello.\n' > index.mdx &&
  git add -A && git -c user.name=b -c user.email=b@b commit -qm init )
L="$work/lectern"
# The secret key every process shares (required on PostgreSQL and S3).
export LECTERN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"

run() { # name url [header]
  local out
  if [ -n "${3:-}" ]; then out=$(wrk -t2 -c64 -d"$DUR" --latency -H "$3" "$2"); else out=$(wrk -t2 -c64 -d"$DUR" --latency "$2"); fi
  local rps p50 p99
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  local non2xx; non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
  printf '%-56s %12s req/s   p50 %-9s p99 %-9s non-2xx %s\n' "$1" "$rps" "$p50" "$p99" "${non2xx:-0}"
}

# bench NAME PORT STORAGE-FLAGS...: starts serve on the store, queues an
# update and an export, polls the export job, and stops serve.
bench() {
  local name=$1 port=$2; shift 2
  local D="$work/data-$port" base="http://127.0.0.1:$port"
  local ORG PRJ KEY JOB pid
  ORG=$($L admin --data-dir "$D" "$@" org create --name Bench --plan enterprise | tail -1)
  PRJ=$($L admin --data-dir "$D" "$@" project create --org "$ORG" --name b --repo "$work/repo" --domain "bench-$port.docs.test" | tail -1)
  KEY=$($L admin --data-dir "$D" "$@" key create --org "$ORG" --name bench | tail -1)
  ${SERVE_ENV:-} "$L" serve --data-dir "$D" "$@" --addr "127.0.0.1:$port" ${SERVE_ARGS:---rate-limit 1000000 --rate-burst 1000000} 2>"$work/serve-$port.log" &
  pid=$!
  for _ in $(seq 100); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.05; done
  local H="Authorization: Bearer $KEY"
  curl -sf -X POST -H "$H" "$base/v1/project/update/$PRJ" >/dev/null
  sleep 1
  JOB=$(curl -sf -X POST -H "$H" -H 'Content-Type: application/json' -d "{\"domain\":\"bench-$port.docs.test\"}" \
        "$base/v1/static-export/jobs" | sed 's/.*"jobId":"\([^"]*\)".*/\1/')
  sleep 1
  run "GET /v1/static-export/jobs/{id} ($name, done)" "$base/v1/static-export/jobs/$JOB" "$H"
  if [ -n "${SHOW_SERVER_LATENCY:-}" ]; then curl -s "$base/metrics" | grep "request_duration_seconds_bucket{method=\"GET\",route=\"/v1/static-export/jobs/{jobId}\"" ; fi
  kill "$pid"; wait "$pid" 2>/dev/null || true

  # A job still running is read from the store (concurrent polls share a
  # load): a second export, slowed down so that it runs all along.
  ${SERVE_ENV:-} "$L" serve --data-dir "$D" "$@" --addr "127.0.0.1:$port" --render-page-delay 10m ${SERVE_ARGS:---rate-limit 1000000 --rate-burst 1000000} 2>>"$work/serve-$port.log" &
  pid=$!
  for _ in $(seq 100); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.05; done
  JOB=$(curl -sf -X POST -H "$H" -H 'Content-Type: application/json' -d "{\"domain\":\"bench-$port.docs.test\"}" \
        "$base/v1/static-export/jobs" | sed 's/.*"jobId":"\([^"]*\)".*/\1/')
  sleep 1
  curl -sf -H "$H" "$base/v1/static-export/jobs/$JOB" | grep -q '"status":"running"' || echo "(the second export is not running)" >&2
  run "GET /v1/static-export/jobs/{id} ($name, running)" "$base/v1/static-export/jobs/$JOB" "$H"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

${SERVE_ENV:-} "$work/bare" --addr 127.0.0.1:18090 &
for _ in $(seq 100); do curl -sf http://127.0.0.1:18090/ >/dev/null && break; sleep 0.05; done
echo "64 concurrent pollers, $DUR each, $(nproc) cores; GOGC of the servers: ${SERVE_ENV:-unset (serve defaults to 400)}"
run "bare net/http (same JSON)" "http://127.0.0.1:18090/"
bench "SQLite" 18091

if [ -n "${SKIP_POSTGRES:-}" ]; then exit 0; fi
if ! psql "$PGURL" -qc "CREATE SCHEMA $schema" >/dev/null 2>"$work/psql.log"; then
  echo "PostgreSQL at $(echo "$PGURL" | sed 's#//[^@/]*@#//***@#') is not reachable (SKIP_POSTGRES=1 to measure SQLite only):" >&2
  cat "$work/psql.log" >&2
  exit 1
fi
pg_ready=1
case "$PGURL" in *\?*) sep='&' ;; *) sep='?' ;; esac
bench "PostgreSQL" 18092 --database-url "${PGURL}${sep}search_path=$schema"
