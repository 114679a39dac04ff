#!/usr/bin/env bash
# Job-status polling throughput: 64 concurrent pollers (wrk) against
# GET /v1/static-export/jobs/{jobId} with auth, beside a bare net/http
# handler returning the same JSON, measured in the same run.
# Needs wrk (apt-get install wrk). Prints req/s and p50/p99 for both.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install wrk" >&2; exit 1; }
DUR=${DUR:-10s}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/bare" ./bench/bare

# A site to export.
mkdir "$work/repo"
( cd "$work/repo" && git init -q -b main &&
  printf '{"name":"Bench","navigation":{"groups":[{"group":"G","pages":["index"]}]}}' > docs.json &&
  printf -- '---\ntitle: Home\n---\nHello.\n' > index.mdx &&
  git add -A && git -c user.name=b -c user.email=b@b commit -qm init )
L="$work/lectern"; D="$work/data"
ORG=$($L admin --data-dir "$D" org create --name Bench --plan enterprise | tail -1)
PRJ=$($L admin --data-dir "$D" project create --org "$ORG" --name b --repo "$work/repo" --domain bench.docs.test | tail -1)
KEY=$($L admin --data-dir "$D" key create --org "$ORG" --name bench | tail -1)
${SERVE_ENV:-} "$L" serve --data-dir "$D" --addr 127.0.0.1:18091 ${SERVE_ARGS:---rate-limit 1000000 --rate-burst 1000000} 2>"$work/serve.log" &
${SERVE_ENV:-} "$work/bare" --addr 127.0.0.1:18090 &
for _ in $(seq 100); do curl -sf http://127.0.0.1:18091/healthz >/dev/null && break; sleep 0.05; done
H="Authorization: Bearer $KEY"
curl -sf -X POST -H "$H" http://127.0.0.1:18091/v1/project/update/$PRJ >/dev/null
sleep 1
JOB=$(curl -sf -X POST -H "$H" -H 'Content-Type: application/json' -d '{"domain":"bench.docs.test"}' \
      http://127.0.0.1:18091/v1/static-export/jobs | sed 's/.*"jobId":"\([^"]*\)".*/\1/')
sleep 1

run() { # name url [header]
  local out
  if [ -n "${3:-}" ]; then out=$(wrk -t2 -c64 -d"$DUR" --latency -H "$3" "$2"); else out=$(wrk -t2 -c64 -d"$DUR" --latency "$2"); fi
  local rps p50 p99
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  local non2xx; non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
  printf '%-34s %12s req/s   p50 %-9s p99 %-9s non-2xx %s\n' "$1" "$rps" "$p50" "$p99" "${non2xx:-0}"
}
echo "64 concurrent pollers, $DUR each, $(nproc) cores; GOGC of both servers: ${SERVE_ENV:-unset (serve defaults to 400)}"
run "bare net/http (same JSON)" "http://127.0.0.1:18090/"
run "GET /v1/static-export/jobs/{id}" "http://127.0.0.1:18091/v1/static-export/jobs/$JOB" "$H"
if [ -n "${SHOW_SERVER_LATENCY:-}" ]; then curl -s http://127.0.0.1:18091/metrics | grep "request_duration_seconds_bucket{method=\"GET\",route=\"/v1/static-export/jobs/{jobId}\"" ; fi
