#!/usr/bin/env bash
# Self-hosted runtime benchmark on a synthetic site of PAGES pages (default
# 1,000; bench/gencorpus), exported through the real API (lectern serve) and
# served by lectern selfhost, all over loopback. Prints:
#
#   - cold start: from starting `lectern selfhost` with an empty cache to the
#     first 200 of the home page (download, verify, extract, build the served
#     tree, serve), RUNS times (default 3), and the median;
#   - static serving: requests/s for one cached page with 64 concurrent
#     clients (wrk, DUR each, default 10s), from lectern selfhost and from a
#     bare http.FileServer over the same served folder, in the same run, and
#     their ratio; then selfhost again with Accept-Encoding: br, gzip.
#
# Needs wrk (apt-get install wrk), curl and jq.
set -euo pipefail
cd "$(dirname "$0")/.."
for c in wrk curl jq git; do command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }; done
PAGES=${PAGES:-1000}
RUNS=${RUNS:-3}
DUR=${DUR:-10s}
work=$(mktemp -d)
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
ms() { date +%s%3N; }

go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/gencorpus" ./bench/gencorpus
go build -o "$work/fileserver" ./bench/fileserver
L="$work/lectern"

echo "selfhost benchmark: $PAGES pages, $(nproc) CPUs, $(go version | awk '{print $3}')"
"$work/gencorpus" -pages "$PAGES" -out "$work/corpus" >/dev/null
( cd "$work/corpus/lectern" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm init )

# Export through the API.
D="$work/data" API="http://127.0.0.1:18190"
ORG=$($L admin --data-dir "$D" org create --name Bench --plan enterprise | tail -1)
PRJ=$($L admin --data-dir "$D" project create --org "$ORG" --name b --repo "$work/corpus/lectern" --domain bench.docs.test | tail -1)
KEY=$($L admin --data-dir "$D" key create --org "$ORG" --name bench | tail -1)
"$L" serve --data-dir "$D" --addr 127.0.0.1:18190 --rate-limit 0 2>"$work/serve.log" &
for _ in $(seq 200); do curl -sf "$API/healthz" >/dev/null && break; sleep 0.05; done
H="Authorization: Bearer $KEY"
UPD=$(curl -sf -X POST -H "$H" "$API/v1/project/update/$PRJ" | jq -r .statusId)
until [ "$(curl -sf -H "$H" "$API/v1/project/update-status/$UPD" | jq -r .status)" = success ]; do sleep 0.2; done
JOB=$(curl -sf -X POST -H "$H" -H 'Content-Type: application/json' -d '{"domain":"bench.docs.test"}' "$API/v1/static-export/jobs" | jq -r .jobId)
until [ "$(curl -sf -H "$H" "$API/v1/static-export/jobs/$JOB" | jq -r .status)" = completed ]; do sleep 0.2; done
BUNDLE=$(curl -sf -X POST -H "$H" "$API/v1/static-export/jobs/$JOB/bundle")
LINK=$(echo "$BUNDLE" | jq -r .bundleUrl)
echo "bundle: $(echo "$BUNDLE" | jq -r .sizeBytes) bytes compressed"

cat >"$work/lectern.yaml" <<YAML
deployment: {type: client-hosted}
staticExport: {enabled: true, bundleUrl: "$LINK"}
features: {search: true}
YAML
SH="http://127.0.0.1:18191"

# Cold start.
times=()
for i in $(seq "$RUNS"); do
	t0=$(ms)
	"$L" selfhost --config "$work/lectern.yaml" --cache-dir "$work/cache-$i" --addr 127.0.0.1:18191 2>"$work/selfhost-$i.log" &
	pid=$!
	until [ "$(curl -s -o /dev/null -w '%{http_code}' "$SH/" || true)" = 200 ]; do
		kill -0 "$pid" 2>/dev/null || { cat "$work/selfhost-$i.log" >&2; exit 1; }
		sleep 0.005
	done
	t1=$(ms)
	times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1000 }')")
	kill "$pid"; wait "$pid" 2>/dev/null || true
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
printf '%-52s %s s (runs: %s; target < 2 s)\n' "cold start to first 200 (download+verify+extract)" "$median" "${times[*]}"

# Static serving: selfhost on its warm cache, FileServer on the same tree.
"$L" selfhost --config "$work/lectern.yaml" --cache-dir "$work/cache-1" --addr 127.0.0.1:18191 2>"$work/selfhost.log" &
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$SH/" || true)" = 200 ]; do sleep 0.01; done
"$work/fileserver" --addr 127.0.0.1:18192 --dir "$work/cache-1/sites/1/files" &
PAGE=$(cd "$work/cache-1/sites/1/files" && ls -d t*/ | head -1)
PAGE=$(cd "$work/cache-1/sites/1/files/$PAGE" && ls *.html | head -1)
PAGE="$(ls -d "$work"/cache-1/sites/1/files/t*/ | head -1 | xargs basename)/${PAGE%.html}"
until curl -sf -o /dev/null "http://127.0.0.1:18192/$PAGE.html"; do sleep 0.01; done
curl -sf -o /dev/null "$SH/$PAGE" || { echo "selfhost does not serve /$PAGE" >&2; exit 1; }
rps() { # url [header]
	local out
	if [ -n "${2:-}" ]; then out=$(wrk -t2 -c64 -d"$DUR" -H "$2" "$1"); else out=$(wrk -t2 -c64 -d"$DUR" "$1"); fi
	if echo "$out" | grep -q 'Non-2xx'; then echo "non-2xx answers from $1" >&2; exit 1; fi
	echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}'
}
bare=$(rps "http://127.0.0.1:18192/$PAGE.html")
self=$(rps "$SH/$PAGE")
comp=$(rps "$SH/$PAGE" "Accept-Encoding: br, gzip")
size=$(curl -s "$SH/$PAGE" | wc -c)
printf '%-52s %8s req/s\n' "bare http.FileServer, /$PAGE.html ($size bytes)" "$bare"
printf '%-52s %8s req/s  %sx FileServer (target >= 0.8x)\n' "lectern selfhost, /$PAGE" "$self" "$(awk -v a="$self" -v b="$bare" 'BEGIN { printf "%.2f", a / b }')"
printf '%-52s %8s req/s\n' "lectern selfhost, Accept-Encoding: br, gzip" "$comp"
