#!/usr/bin/env bash
# Live-site serving benchmark (issue 21, item 1): `lectern serve` hosting a
# 50-page deployment (bench/gencorpus, PAGES to change it) by host name,
# against a bare http.FileServer (bench/fileserver) over the same rendered
# files, side by side in one run, on loopback. For each store:
#
#   (a) the embedded default: SQLite and the blob folder in --data-dir;
#   (b) PostgreSQL and S3: BENCH_S3_URL, else TEST_S3_URL (credentials from
#       AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), else a versitygw this
#       script starts on loopback when the binary is installed (as .ci/run
#       does); skipped, saying why, without one or without PostgreSQL;
#
# it prints, with wrk (64 connections, 2 threads, DUR each, default 10s):
# requests/s and p99 of one page (/t01/p00001) and one asset (Lectern's
# stylesheet, /_lectern/style.HASH.css, the name the page links to) from
# lectern serve (Host: the project's domain) and from the FileServer,
# measured one after the other, and lectern's ratios to the FileServer
# (req/s: higher is better; p99: lower is better); then lectern again
# with Accept-Encoding: br, gzip (a browser's request), for information.
# Last, the cold site: COLD other projects (default 5) are deployed but
# never requested while the load runs; the first request to each is then
# timed with curl (ms, median and max).
#
# Nothing here asserts a time: the script prints figures. A request that
# does not answer 200 stops it.
#
# PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local
# postgres://postgres@127.0.0.1:5432/test; the run uses a schema of its own,
# dropped at the end. SKIP_POSTGRES=1 measures the embedded default only.
# Needs wrk (apt-get install wrk), curl, jq and git; psql for (b).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
for c in wrk curl jq git; do
	command -v $c >/dev/null || { echo "$c is not installed (wrk: apt-get install wrk)" >&2; exit 1; }
done
PAGES=${PAGES:-50}
DUR=${DUR:-10s}
COLD=${COLD:-5}
PGURL=${BENCH_DATABASE_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}}
S3URL=${BENCH_S3_URL:-${TEST_S3_URL:-}}
DOMAIN=bench.docs.test
PAGE=/t01/p00001
ASSET="" # the stylesheet the page links to, named by its content: set by bench
work=$(mktemp -d)
schema=""
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	wait 2>/dev/null || true
	if [ -n "$schema" ]; then psql "$PGURL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/gencorpus" ./bench/gencorpus
go build -o "$work/fileserver" ./bench/fileserver
L="$work/lectern"
# The secret key every process shares (required on PostgreSQL and S3).
export LECTERN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"

"$work/gencorpus" -pages "$PAGES" -out "$work/corpus" >/dev/null
repo="$work/corpus/lectern"
(cd "$repo" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)

row() { # server path bytes rps p99 [rps-ratio p99-ratio]
	printf '| %-36s | %-19s | %7s | %8s | %8s ms | %-11s | %-9s |\n' "$1" "$2" "$3" "$4" "$5" "${6:--}" "${7:--}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
# bench NAME PORT STORAGE-FLAGS...: deploys the corpus (and COLD projects
# never requested) on the store, then measures and prints its rows.
bench() {
	local name=$1 port=$2; shift 2
	local api="http://127.0.0.1:$port" fsurl="http://127.0.0.1:$((port + 1))"
	local ORG PRJ KEY H pid i upd st
	ORG=$("$L" admin "$@" org create --name Bench --plan enterprise | tail -1)
	PRJ=$("$L" admin "$@" project create --org "$ORG" --name b --repo "$repo" --domain "$DOMAIN" | tail -1)
	local prjs=("$PRJ")
	for i in $(seq "$COLD"); do
		prjs+=("$("$L" admin "$@" project create --org "$ORG" --name "cold$i" --repo "$repo" --domain "cold$i.$DOMAIN" | tail -1)")
	done
	KEY=$("$L" admin "$@" key create --org "$ORG" --name bench | tail -1)
	H="Authorization: Bearer $KEY"
	"$L" serve "$@" --addr "127.0.0.1:$port" --rate-limit 0 2>"$work/serve-$port.log" &
	pid=$!
	waitup "$api/healthz"
	local upds=()
	for p in "${prjs[@]}"; do upds+=("$(curl -sf -X POST -H "$H" "$api/v1/project/update/$p" | jq -r .statusId)"); done
	for upd in "${upds[@]}"; do
		for _ in $(seq 1200); do
			st=$(curl -sf -H "$H" "$api/v1/project/update-status/$upd" | jq -r .status)
			[ "$st" = queued ] || [ "$st" = in_progress ] || break
			sleep 0.1
		done
		[ "$st" = success ] || { echo "$name: update $upd ended $st:" >&2; tail -20 "$work/serve-$port.log" >&2; exit 1; }
	done

	# The FileServer serves the very bytes lectern serves for the page and
	# the stylesheet it links to (the deployment's files are stored by
	# content, not as a folder), written where their paths name them.
	local site="$work/fs-$port"
	curl -sf --create-dirs -H "Host: $DOMAIN" -o "$site$PAGE.html" "$api$PAGE" ||
		{ echo "$name: lectern does not serve $PAGE for $DOMAIN" >&2; exit 1; }
	# Lectern's stylesheet carries a hash of its content in its name: the
	# one the page links to.
	ASSET=$(grep -o 'href="/_lectern/style[^"]*\.css"' "$site$PAGE.html" | head -1 | sed 's/^href="//; s/"$//')
	[ -n "$ASSET" ] || { echo "$name: $PAGE links to no stylesheet under /_lectern/" >&2; exit 1; }
	curl -sf --create-dirs -H "Host: $DOMAIN" -o "$site$ASSET" "$api$ASSET" ||
		{ echo "$name: lectern does not serve $ASSET for $DOMAIN" >&2; exit 1; }
	"$work/fileserver" --addr "127.0.0.1:$((port + 1))" --dir "$site" &
	local fspid=$!
	waitup "$fsurl$PAGE.html"
	local live="$api$PAGE" host="Host: $DOMAIN"
	local psize asize
	psize=$(stat -c %s "$site$PAGE.html")
	asize=$(stat -c %s "$site$ASSET")

	echo
	echo "## $name (load $(cut -d' ' -f1 /proc/loadavg))"
	echo
	row server path bytes req/s p99 "req/s vs FS" "p99 vs FS"
	echo "|---|---|---|---|---|---|---|"
	local frps fp99
	for p in "$PAGE" "$ASSET"; do
		local size=$psize fpath=$p.html
		[ "$p" = "$ASSET" ] && size=$asize fpath=$p
		wrk_run "$fsurl$fpath"
		frps=$RPS fp99=$P99
		row "http.FileServer (bench/fileserver)" "$fpath" "$size" "$frps" "$fp99"
		wrk_run "$api$p" "$host"
		row "lectern serve, Host: $DOMAIN" "$p" "$size" "$RPS" "$P99" "$(ratio "$RPS" "$frps")" "$(ratio "$P99" "$fp99")"
		local zsize
		zsize=$(curl -s -H "$host" -H 'Accept-Encoding: br, gzip' "$api$p" | wc -c)
		wrk_run "$api$p" "$host" "Accept-Encoding: br, gzip"
		row "  same, Accept-Encoding: br, gzip" "$p" "$zsize" "$RPS" "$P99"
	done
	kill "$fspid"; wait "$fspid" 2>/dev/null || true

	# Cold sites: the first request to each project not requested so far.
	local t=() ms
	for i in $(seq "$COLD"); do
		ms=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H "Host: cold$i.$DOMAIN" "$live" |
			awk '$1 != 200 { exit 1 } { printf "%.1f", $2 * 1000 }') ||
			{ echo "$name: the first request to cold$i.$DOMAIN did not answer 200" >&2; exit 1; }
		t+=("$ms")
	done
	if [ "$COLD" -gt 0 ]; then
		echo
		printf 'cold site, first request of %s (%d sites, each never requested before): median %s ms, max %s ms (%s)\n' "$PAGE" "$COLD" \
			"$(printf '%s\n' "${t[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
			"$(printf '%s\n' "${t[@]}" | sort -g | tail -1)" "${t[*]}"
	fi
	kill "$pid"; wait "$pid" 2>/dev/null || true
}

echo "live-site serving: $PAGES-page site, wrk 64 connections x $DUR, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(go version | awk '{print $3}')"
echo "(ratios are lectern serve / http.FileServer: req/s, higher is better; p99, lower is better)"
bench "SQLite + folder" 18400 --data-dir "$work/sqlite"

# (b): PostgreSQL and S3.
if [ -n "${SKIP_POSTGRES:-}" ]; then exit 0; fi
skip() { echo; echo "## PostgreSQL + S3: skipped: $*"; exit 0; }
command -v psql >/dev/null || skip "psql is not installed (apt-get install postgresql-client)"
schema="lectern_bench_sites_$$"
psql "$PGURL" -qc "CREATE SCHEMA $schema" >/dev/null 2>"$work/psql.log" || {
	schema=""
	skip "PostgreSQL at $(echo "$PGURL" | sed 's#//[^@/]*@#//***@#') is not reachable: $(head -1 "$work/psql.log")"
}
if [ -z "$S3URL" ]; then
	gw=$(command -v versitygw || true)
	if [ -z "$gw" ] && [ -x "$(go env GOPATH)/bin/versitygw" ]; then gw="$(go env GOPATH)/bin/versitygw"; fi
	[ -n "$gw" ] || skip "no BENCH_S3_URL or TEST_S3_URL, and versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0, as .ci/run does)"
	mkdir -p "$work/s3/lectern-bench"
	s3port=18480
	while (exec 3<>"/dev/tcp/127.0.0.1/$s3port") 2>/dev/null; do s3port=$((s3port + 1)); done
	export AWS_ACCESS_KEY_ID=lectern-bench
	AWS_SECRET_ACCESS_KEY="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
	export AWS_SECRET_ACCESS_KEY
	"$gw" --port "127.0.0.1:$s3port" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" \
		--quiet posix "$work/s3" >"$work/versitygw.log" 2>&1 &
	for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$s3port") 2>/dev/null && break; sleep 0.2; done
	(exec 3<>"/dev/tcp/127.0.0.1/$s3port") 2>/dev/null || skip "versitygw did not start: $(head -5 "$work/versitygw.log")"
	S3URL="s3://lectern-bench?endpoint=http://127.0.0.1:$s3port&region=us-east-1&use_path_style=true"
	echo
	echo "(S3: $gw started on 127.0.0.1:$s3port, posix backend in a temporary folder)"
fi
case "$PGURL" in *\?*) sep='&' ;; *) sep='?' ;; esac
bench "PostgreSQL + S3" 18410 --data-dir "$work/pg" --database-url "${PGURL}${sep}search_path=$schema" --blob-url "$S3URL"
