#!/usr/bin/env bash
# Fair job claiming benchmark (issue 22): can one organization's backlog
# starve another's update? Real `lectern serve` processes, built from the
# working tree ("after") and from the commit before fair claiming
# ("before", BEFORE_REV, default 0b7d6f0^: the oldest available job first,
# one queue for every organization; built from a `git worktree add` of it
# in a temporary folder, removed at the end), side by side in one run, on
# two stores:
#
#   (a) the embedded default: SQLite and the blob folder, one
#       `serve --workers 2`;
#   (b) PostgreSQL: two `serve --role all --workers 2` processes on one
#       schema, their blobs in one shared folder (--blob-url file:///...).
#
# For each store and binary, on a fresh store:
#
#   - a lone update's trigger-to-live, the median of 3: from the API
#     trigger to the project's page answering 200 at its domain (polled
#     every 50 ms), each of a fresh project while nothing else runs;
#   - organization A (20 projects) triggers 40 updates through the API,
#     every project once and then every project again (a second trigger
#     supersedes the project's queued update, as the product does: the
#     table says how many ran); one second after A's first trigger,
#     organization B triggers the update of its one fresh project. Printed:
#     B's trigger-to-live, its ratio to the lone update's (issue 22's
#     target: under 2), how long B's update waited in the queue (its
#     startedAt - createdAt), how many of A's updates ran and were
#     superseded, failed or stuck (a project's first update still
#     in_progress after its second ended, which a race of a trigger with a
#     claim can leave), and A's drain: from A's first trigger until every
#     other one of A's updates ended (polled every half second).
#
# Every project builds the same synthetic corpus (bench/gencorpus, PAGES
# pages, default 200: about a second's update on an idle 2-core machine),
# with the build cache off (--build-cache-size 0), so that every update
# renders the whole site. The "after" binary claims with its defaults
# (--org-jobs 2). Other serve flags: SERVE_FLAGS (both binaries; replaces
# --build-cache-size 0).
#
#   bench/fairness.sh                 # both stores
#   PAGES=500 bench/fairness.sh       # longer updates
#   SKIP_POSTGRES=1 bench/fairness.sh # the embedded default only
#   ALSO_ORG_JOBS=1 bench/fairness.sh # and a row of "after" with --org-jobs 1
#
# Nothing here asserts a time: the script prints figures. A lone update or
# B's update that does not go live stops it. The claim throughput with
# 10,000 queued jobs is measured by the Go benchmarks:
# go test -run '^$' -bench Claim10k ./store/sqlite ./store/postgres
#
# PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local
# postgres://postgres@127.0.0.1:5432/test; each binary's run uses a schema
# of its own, dropped at the end. Needs curl, jq and git; psql for (b).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
for c in curl jq git; do command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }; done
PAGES=${PAGES:-200}
BEFORE_REV=${BEFORE_REV:-0b7d6f0^}
read -r -a SERVE_EXTRA <<<"${SERVE_FLAGS:---build-cache-size 0}"
PGURL=${BENCH_DATABASE_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}}
PAGE=/t01/p00001
A_PROJECTS=20
work=$(mktemp -d)
schemas=()
tree=""
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	wait 2>/dev/null || true
	for s in "${schemas[@]}"; do psql "$PGURL" -qc "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true; done
	if [ -n "$tree" ]; then git worktree remove --force "$tree" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

before=$(git rev-parse --short "$BEFORE_REV")
go build -o "$work/after" ./cmd/lectern
tree="$work/before-src"
git worktree add --quiet --detach "$tree" "$before"
(cd "$tree" && go build -o "$work/before" ./cmd/lectern)
git worktree remove --force "$tree"
tree=""
go build -o "$work/gencorpus" ./bench/gencorpus
"$work/gencorpus" -pages "$PAGES" -out "$work/corpus" >/dev/null
repo="$work/corpus/lectern"
(cd "$repo" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)
# The secret key every process shares (required on PostgreSQL).
LECTERN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"
export LECTERN_SECRET_KEY

nowns() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
# live API DOMAIN: whether the page answers 200 at DOMAIN.
live() { [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $2" "$1$PAGE")" = 200 ]; }
# trigger API KEY PROJECT: queues an update; prints its status id.
trigger() { curl -sf -X POST -H "Authorization: Bearer $2" "$1/v1/project/update/$3" | jq -r .statusId; }
# golive API DOMAIN: waits (up to 10 min) for the page to answer at DOMAIN.
golive() {
	for _ in $(seq 12000); do live "$1" "$2" && return; sleep 0.05; done
	echo "$2 did not go live" >&2
	return 1
}
# stamp ISO-TIME: seconds since the epoch, with the fraction.
stamp() { date -d "$1" +%s.%N; }

row() { # store binary lone B ratio waited ran superseded failed stuck drain load
	printf '| %-10s | %-18s | %8s | %8s | %7s | %8s | %5s | %10s | %6s | %5s | %9s | %5s |\n' "$@"
}

# run STORE BINARY LABEL PORT ADMIN-FLAGS -- PROCESS-FLAGS... (one argument
# per process, its flags space-separated; the words of $variant are added
# to each): starts the processes, measures, prints a row labelled LABEL,
# stops them.
run() {
	local store=$1 bin=$2 label=$3 port=$4
	shift 4
	local admin=() procs=() L="$work/$bin"
	while [ "$1" != -- ]; do admin+=("$1"); shift; done
	shift
	procs=("$@")
	local api="http://127.0.0.1:$port" i org p
	local LO LK AO AK BO BK lone=() aprj=() bprj
	LO=$("$L" admin "${admin[@]}" org create --name Lone --plan enterprise | tail -1)
	LK=$("$L" admin "${admin[@]}" key create --org "$LO" --name bench | tail -1)
	AO=$("$L" admin "${admin[@]}" org create --name Busy --plan enterprise | tail -1)
	AK=$("$L" admin "${admin[@]}" key create --org "$AO" --name bench | tail -1)
	BO=$("$L" admin "${admin[@]}" org create --name Other --plan enterprise | tail -1)
	BK=$("$L" admin "${admin[@]}" key create --org "$BO" --name bench | tail -1)
	for i in 1 2 3; do
		lone+=("$("$L" admin "${admin[@]}" project create --org "$LO" --name "lone$i" --repo "$repo" --domain "lone$i.fair.test" | tail -1)")
	done
	for i in $(seq "$A_PROJECTS"); do
		aprj+=("$("$L" admin "${admin[@]}" project create --org "$AO" --name "a$i" --repo "$repo" --domain "a$i.fair.test" | tail -1)")
	done
	bprj=$("$L" admin "${admin[@]}" project create --org "$BO" --name b --repo "$repo" --domain b.fair.test | tail -1)
	local n=0 pids=() flags
	for flags in "${procs[@]}"; do
		# shellcheck disable=SC2086
		"$L" serve $flags $variant "${SERVE_EXTRA[@]}" --addr "127.0.0.1:$((port + n))" --rate-limit 0 --workers 2 \
			2>"$work/serve-$port-$n.log" &
		pids+=($!)
		waitup "http://127.0.0.1:$((port + n))/healthz"
		n=$((n + 1))
	done

	# A lone update, three times.
	local t0 t1 times=()
	for i in 0 1 2; do
		t0=$(nowns)
		trigger "$api" "$LK" "${lone[$i]}" >/dev/null
		golive "$api" "lone$((i + 1)).fair.test" || { tail -20 "$work/serve-$port-0.log" >&2; exit 1; }
		t1=$(nowns)
		times+=("$(secs "$t0" "$t1")")
	done
	local lonemed
	lonemed=$(median "${times[@]}")
	echo "($store, $label: lone updates ${times[*]} s)" >&2

	# A's 40 updates, B's one a second later.
	{
		printf 'header = "Authorization: Bearer %s"\nrequest = "POST"\n' "$AK"
		for _ in 1 2; do printf 'url = "'"$api"'/v1/project/update/%s"\n' "${aprj[@]}"; done
	} >"$work/a.cfg"
	local ta0 ids=() tb0 bid tb1="" ta1="" k=0 st sts=() pending stuck
	ta0=$(nowns)
	mapfile -t ids < <(curl -s -K "$work/a.cfg" | jq -r '.statusId // "-"')
	if [ "${#ids[@]}" -ne $((2 * A_PROJECTS)) ] || printf '%s\n' "${ids[@]}" | grep -qx -- -; then
		echo "$store, $bin: organization A's triggers did not all queue: ${ids[*]}" >&2; exit 1
	fi
	sleep "$(awk -v a="$ta0" -v b="$(nowns)" 'BEGIN { d = 1 - (b - a) / 1e9; print (d > 0 ? d : 0) }')"
	tb0=$(nowns)
	bid=$(trigger "$api" "$BK" "$bprj")
	{
		printf 'header = "Authorization: Bearer %s"\n' "$AK"
		printf 'url = "'"$api"'/v1/project/update-status/%s"\n' "${ids[@]}"
	} >"$work/s.cfg"
	while [ -z "$tb1" ] || [ -z "$ta1" ]; do
		if [ -z "$tb1" ] && live "$api" b.fair.test; then tb1=$(nowns); fi
		if [ -z "$ta1" ] && [ $((k % 10)) -eq 0 ]; then
			mapfile -t sts < <(curl -s -K "$work/s.cfg" | jq -r .status)
			pending=0 stuck=0
			for i in "${!sts[@]}"; do
				case ${sts[$i]} in queued | in_progress) ;; *) continue ;; esac
				# A project's updates run one at a time: its first update
				# still in progress once its second ended is stuck.
				if [ "$i" -lt "$A_PROJECTS" ] && [ "${sts[$i]}" = in_progress ] &&
					echo "${sts[$((i + A_PROJECTS))]}" | grep -qxE 'success|failure|canceled'; then
					stuck=$((stuck + 1))
				else
					pending=$((pending + 1))
				fi
			done
			if [ "${#sts[@]}" -eq $((2 * A_PROJECTS)) ] && [ "$pending" -eq 0 ]; then ta1=$(nowns); fi
		fi
		k=$((k + 1))
		if [ "$k" -gt 12000 ]; then echo "$store, $bin: not done after 10 minutes" >&2; tail -20 "$work/serve-$port-0.log" >&2; exit 1; fi
		sleep 0.05
	done
	local ran sup failed bjson waited
	st=$(printf '%s\n' "${sts[@]}")
	ran=$(echo "$st" | grep -cx success || true)
	sup=$(echo "$st" | grep -cx superseded || true)
	failed=$(echo "$st" | grep -cvxE 'success|superseded|in_progress' || true)
	if [ "$stuck" -gt 0 ]; then
		echo "($store, $label: $stuck of A's updates stayed in_progress after the project's next update ended:" \
			"$(for i in "${!sts[@]}"; do [ "$i" -lt "$A_PROJECTS" ] && [ "${sts[$i]}" = in_progress ] && printf '%s ' "${ids[$i]}"; done))" >&2
	fi
	bjson=$(curl -sf -H "Authorization: Bearer $BK" "$api/v1/project/update-status/$bid")
	waited=$(awk -v a="$(stamp "$(echo "$bjson" | jq -r .createdAt)")" -v b="$(stamp "$(echo "$bjson" | jq -r .startedAt)")" \
		'BEGIN { printf "%.2f", b - a }')
	local bsec
	bsec=$(secs "$tb0" "$tb1")
	row "$store" "$label" "$lonemed" "$bsec" "$(ratio "$bsec" "$lonemed" 2)x" \
		"$waited" "$ran" "$sup" "$failed" "$stuck" "$(secs "$ta0" "$ta1")" "$(cut -d' ' -f1 /proc/loadavg)"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

echo "fair claiming: $PAGES-page updates, 2 workers a process, serve flags: ${SERVE_EXTRA[*]}; before = $before, after = the working tree (--org-jobs 2)"
echo "(lone: median of 3 trigger-to-live; B: organization B's one update, triggered 1 s after A's 40; waited: B's time queued; A: its updates that ran, were superseded, failed, stuck in progress, and its drain)"
echo
row store binary "lone s" "B s" "B/lone" "B waited" "A ran" "superseded" failed stuck "A drain s" load
row ---------- ------------------ -------- -------- ------- -------- ----- ---------- ------ ----- --------- -----
# The runs: binary, label, and serve flags of that run alone.
runs=("before|before ($before)|" "after|after (tree)|")
if [ -n "${ALSO_ORG_JOBS:-}" ]; then runs+=("after|after, org-jobs $ALSO_ORG_JOBS|--org-jobs $ALSO_ORG_JOBS"); fi
port=18700
for r in "${runs[@]}"; do
	IFS='|' read -r bin label variant <<<"$r"
	run SQLite "$bin" "$label" "$port" --data-dir "$work/sqlite-$port" -- "--data-dir $work/sqlite-$port"
	port=$((port + 10))
done

if [ -n "${SKIP_POSTGRES:-}" ]; then exit 0; fi
command -v psql >/dev/null || { echo "(PostgreSQL: skipped: psql is not installed)"; exit 0; }
case "$PGURL" in *\?*) sep='&' ;; *) sep='?' ;; esac
for r in "${runs[@]}"; do
	IFS='|' read -r bin label variant <<<"$r"
	schema="lectern_bench_fair_$$_$port"
	psql "$PGURL" -qc "CREATE SCHEMA $schema" >/dev/null 2>"$work/psql.log" || {
		echo "(PostgreSQL: skipped: $(echo "$PGURL" | sed 's#//[^@/]*@#//***@#') is not reachable: $(head -1 "$work/psql.log"))"
		exit 0
	}
	schemas+=("$schema")
	db="${PGURL}${sep}search_path=$schema"
	blobs="file://$work/pg-blobs-$port"
	mkdir -m 700 "$work/pg-blobs-$port"
	run PostgreSQL "$bin" "$label" "$port" --data-dir "$work/pg-admin-$port" --database-url "$db" --blob-url "$blobs" -- \
		"--role all --data-dir $work/pg-$port-1 --database-url $db --blob-url $blobs" \
		"--role all --data-dir $work/pg-$port-2 --database-url $db --blob-url $blobs"
	port=$((port + 10))
done
