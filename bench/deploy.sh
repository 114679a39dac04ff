#!/usr/bin/env bash
# Update benchmark (issue 21, item 5): trigger to live of a full update of
# the synthetic corpus (bench/gencorpus, PAGES pages, default 10,000, tabs of
# 250) and then of an update that changes one page, on `lectern serve` with
# the embedded default (SQLite and the blob folder, one worker), side by
# side in one run. Printed per update: seconds from the trigger to the
# update's success, polled every 25 ms with one request (the live page,
# checked then, must show the change: it goes live in the same
# transaction), the fetch and render times and files stored that the update's log reports,
# and the bytes the blob folder grew by. Then the same one-page change with
# the worker's build cache off (--build-cache-size 0: render everything,
# share the stored files), and an update that changes nothing.
#
#   bench/deploy.sh               # 10,000 pages
#   PAGES=1000 bench/deploy.sh    # 1,000 pages
#   UNCACHED=0 bench/deploy.sh    # the build cache on only
#   SERVE_FLAGS=--build-in-process bench/deploy.sh   # more serve flags
#
# Nothing here asserts a time: the script prints figures. Needs curl, jq
# and git.
set -euo pipefail
cd "$(dirname "$0")/.."
for c in curl jq git; do command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }; done
PAGES=${PAGES:-10000}
DOMAIN=deploy.docs.test
PAGE=/t01/p00001
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/gencorpus" ./bench/gencorpus
L="$work/lectern"
"$work/gencorpus" -pages "$PAGES" -out "$work/corpus" >/dev/null
repo="$work/corpus/lectern"
(cd "$repo" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)
page_src=$(cd "$repo" && git ls-files | grep -E '^t01/p0*1\.mdx?$' | head -1)
[ -n "$page_src" ] || { echo "the corpus has no t01/p00001 page" >&2; exit 1; }

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# run NAME PORT SERVE-FLAGS...: a fresh server; the full update, then the
# one-page change and an update that changes nothing.
run() {
	local name=$1 port=$2; shift 2
	local data="$work/data-$port" api="http://127.0.0.1:$port"
	"$L" admin --data-dir "$data" org create --name Bench --plan enterprise >"$work/org" 2>&1
	local ORG PRJ KEY
	ORG=$(tail -1 "$work/org")
	PRJ=$("$L" admin --data-dir "$data" project create --org "$ORG" --name b --repo "$repo" --domain "$DOMAIN" | tail -1)
	KEY=$("$L" admin --data-dir "$data" key create --org "$ORG" --name bench | tail -1)
	"$L" serve --data-dir "$data" --addr "127.0.0.1:$port" --rate-limit 0 --workers 1 "$@" 2>"$work/serve-$port.log" &
	for _ in $(seq 400); do curl -sf -o /dev/null "$api/healthz" && break; sleep 0.05; done
	local n=0
	update() { # WHAT MARKER: trigger, wait, print a row
		local what=$1 marker=$2 t0 upd st t1 before after logs
		before=$(du -sb "$data/blobs" 2>/dev/null | cut -f1 || echo 0)
		t0=$(now)
		upd=$(curl -sf -X POST -H "Authorization: Bearer $KEY" "$api/v1/project/update/$PRJ" | jq -r .statusId)
		# One curl every 25 ms: the polling must not take the CPUs the
		# update needs. The page goes live in the transaction that records
		# the success, so it is checked once after.
		while :; do
			st=$(curl -sf -H "Authorization: Bearer $KEY" "$api/v1/project/update-status/$upd" | jq -r .status)
			[ "$st" = queued ] || [ "$st" = in_progress ] || break
			sleep 0.025
		done
		t1=$(now)
		[ "$st" = success ] || { echo "$name: update ended $st" >&2; tail -20 "$work/serve-$port.log" >&2; exit 1; }
		if [ -n "$marker" ]; then
			local tries=0
			until curl -sf -H "Host: $DOMAIN" "$api$PAGE" | grep -qF "$marker"; do
				tries=$((tries + 1))
				[ "$tries" -lt 500 ] || { echo "$name: $PAGE does not show the change 10 s after the update succeeded" >&2; exit 1; }
				sleep 0.02
			done
			[ "$tries" -eq 0 ] || echo "($name, $what: the page showed the change $tries polls of 20 ms after the success)" >&2
		fi
		after=$(du -sb "$data/blobs" | cut -f1)
		logs=$(curl -sf -H "Authorization: Bearer $KEY" "$api/v1/project/update-status/$upd" | jq -r '.logs // [] | .[]')
		local render stored fetch
		render=$(echo "$logs" | sed -n 's/.*Rendered .* in \([0-9.]*m\?s\).*/\1/p' | tail -1)
		stored=$(echo "$logs" | sed -n 's/.*Published deployment [^ ]* (\(.*\)) in \(.*\); source snapshot in \(.*\)/\1; \2; snapshot \3/p' | tail -1)
		fetch=$(echo "$logs" | sed -n 's/.*Fetched commit [^ ]* ([^)]*) in \([^:]*\):.*/\1/p' | tail -1)
		printf '| %-10s | %-18s | %8s | %-17s | %-52s | %10s |\n' "$name" "$what" "$(secs "$t0" "$t1")" "${fetch:--} + ${render:--}" "${stored:--}" "$(numfmt --to=iec $((after - before)))"
	}
	update "full update" "$(sed -n 's/^title: "\(.*\)"$/\1/p' "$repo/$page_src" | head -1)"
	n=$((n + 1))
	(cd "$repo" && printf '\nEdited %s.\n' "edit-$port-$n" >>"$page_src" && git -c user.name=b -c user.email=b@b commit -qam "edit $n")
	update "one page changed" "edit-$port-$n"
	update "nothing changed" ""
	kill %% 2>/dev/null || true
	wait 2>/dev/null || true
}

echo "$PAGES pages (tabs of 250), $(nproc) cores; seconds from the trigger"
printf '| %-10s | %-18s | %8s | %-17s | %-52s | %10s |\n' server update "live (s)" "fetch + render" "files stored; in; source snapshot" "blobs grew"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------ -------------------- ---------- ------------------- ------------------------------------------------------ ------------
# shellcheck disable=SC2086
run cached 18180 ${SERVE_FLAGS:-}
# shellcheck disable=SC2086
if [ "${UNCACHED:-1}" != 0 ]; then run uncached 18190 --build-cache-size 0 ${SERVE_FLAGS:-}; fi
