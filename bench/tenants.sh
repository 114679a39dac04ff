#!/usr/bin/env bash
# Many-tenant live-site benchmark (issue 21, item 4): `lectern serve` on the
# embedded default (SQLite and the blob folder in --data-dir) hosting
# PROJECTS projects (default 1000), each a small site of SITE_PAGES pages
# (default 5, bench/gencorpus) from one shared git repository under a
# domain of its own (p0001.docs.test, p0002.docs.test, ...), and one big
# site of BIG_PAGES pages (default 3000, big.docs.test) for the busy
# tenant. It prints:
#
#   - deploying: the time to create the projects (lectern admin), and from
#     triggering every update through the API to the last site live;
#   - memory and load, with --site-cache-size at its default: the serve
#     process's resident memory (VmRSS from /proc/PID/status) after the
#     deploys and after a restart; then wrk (64 connections, 2 threads, DUR,
#     default 10s, bench/tenants.lua) across every page and two assets
#     (the stylesheet and site.js) of every site but the cold ones, the
#     Host header rotating over their domains: requests/s, p99, and the
#     resident memory after (and its peak, VmHWM);
#   - cold sites: the first request of a page of COLD sites (default 50)
#     never requested since serve started, timed with curl: median, p95 and
#     max in ms, once right after the restart and once (other COLD sites)
#     after the load, when the cache holds the other sites' files;
#   - fairness: the big site hammered with wrk over all its pages (its
#     files are more than the quarter of the cache one site may hold) while
#     passes over the other sites' files run beside it: their p50 before and
#     during the hammering, and, after it, the share of the bytes of every
#     tenth other site still served from memory. No metric says which files
#     the cache holds: a pass over those sites' files counts the bytes serve
#     reads meanwhile (rchar in /proc/PID/io; a file missing from the cache
#     is read whole from the blob folder), less those of the same pass when
#     all were in memory (the sockets' and the database's). The probe takes a sample,
#     not all the other sites, as each file it reads back pushes out the
#     least recently used one, which in a pass over all of them would be
#     the next ones it asks for;
#   - the bound: serve restarted with --site-cache-size SMALL_CACHE
#     (default 64MiB), the same load, then the same hammering, the resident
#     memory after each, and the share of the sample served from memory.
#
#   Besides its figures, each load prints the bytes serve read meanwhile
#   (mostly from the blob folder). GOGC, when set, reaches serve, which
#   otherwise sets its own garbage collector's target (printed).
#
# Nothing here asserts a time: the script prints figures. A request that
# does not answer 200 stops it. WORKERS (default 2, serve's default) sets
# serve's --workers while deploying.
#
# Needs wrk (apt-get install wrk), curl, jq and git.
set -euo pipefail
cd "$(dirname "$0")/.."
for c in wrk curl jq git; do
	command -v $c >/dev/null || { echo "$c is not installed (wrk: apt-get install wrk)" >&2; exit 1; }
done
PROJECTS=${PROJECTS:-1000}
SITE_PAGES=${SITE_PAGES:-5}
BIG_PAGES=${BIG_PAGES:-3000}
COLD=${COLD:-50}
DUR=${DUR:-10s}
WORKERS=${WORKERS:-2}
SMALL_CACHE=${SMALL_CACHE:-64MiB}
[ "$COLD" -le $((PROJECTS / 4)) ] || COLD=$((PROJECTS / 4))
PORT=18500
API="http://127.0.0.1:$PORT"
PAGE=/t01/p00001
work=$(mktemp -d)
SPID=""
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=bench/lib.sh
. bench/lib.sh

go build -o "$work/lectern" ./cmd/lectern
go build -o "$work/gencorpus" ./bench/gencorpus
L="$work/lectern"
D="$work/data"
# The secret key that encrypts repository credentials (none here).
LECTERN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"
export LECTERN_SECRET_KEY
for s in small:"$SITE_PAGES" big:"$BIG_PAGES"; do
	"$work/gencorpus" -pages "${s#*:}" -out "$work/${s%%:*}" >/dev/null
	(cd "$work/${s%%:*}/lectern" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)
done

# start_serve FLAG...: starts lectern serve on the data folder; sets SPID.
start_serve() {
	"$L" serve --data-dir "$D" --addr "127.0.0.1:$PORT" --rate-limit 0 "$@" 2>>"$work/serve.log" &
	SPID=$!
	waitup "$API/healthz"
}
stop_serve() { kill "$SPID"; wait "$SPID" 2>/dev/null || true; SPID=""; }
secs_since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

echo "many tenants: $PROJECTS sites of $SITE_PAGES pages and one of $BIG_PAGES, SQLite + folder, wrk 64 connections x $DUR, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(go version | awk '{print $3}')"
echo

# Projects: the small sites from one repository, each with its domain.
t0=$(date +%s%N)
ORG=$("$L" admin --data-dir "$D" org create --name Bench --plan enterprise | tail -1)
domains=() prjs=()
for i in $(seq "$PROJECTS"); do
	d=$(printf 'p%04d.docs.test' "$i")
	domains+=("$d")
	prjs+=("$("$L" admin --data-dir "$D" project create --org "$ORG" --name "$d" --repo "$work/small/lectern" --domain "$d" | tail -1)")
done
BIG=$("$L" admin --data-dir "$D" project create --org "$ORG" --name big --repo "$work/big/lectern" --domain big.docs.test | tail -1)
KEY=$("$L" admin --data-dir "$D" key create --org "$ORG" --name bench | tail -1)
echo "created $((PROJECTS + 1)) projects with lectern admin in $(secs_since "$t0") s"

start_serve --workers "$WORKERS"
deploy "$API" "$KEY" "$BIG"
echo "deployed the big site ($BIG_PAGES pages) in $DEPLOY_S s"
deploy "$API" "$KEY" "${prjs[@]}"
echo "deployed $PROJECTS sites of $SITE_PAGES pages in $DEPLOY_S s ($(rate "$PROJECTS" "$DEPLOY_S") sites/s; serve --workers $WORKERS), from the first trigger through the API to the last site live"
echo "serve's resident memory after the deploys: $(vm_mb "$SPID" VmRSS) MB"

# What is requested, as the sites say (their sitemap, the page's links):
# every page of a small site, its stylesheet and its script; every page of
# the big one.
paths() { # DOMAIN: the paths of the site's pages
	curl -sf -H "Host: $1" "$API/sitemap.xml" | grep -o '<loc>[^<]*</loc>' | sed 's#</*loc>##g; s#^https*://[^/]*##'
}
mapfile -t spaths < <(
	paths "${domains[-1]}"
	curl -sf -H "Host: ${domains[-1]}" "$API$PAGE" | grep -o '/_lectern/\(style[^"]*\.css\|site[^"]*\.js\)' | sort -u
)
[ "${#spaths[@]}" -gt "$SITE_PAGES" ] || { echo "the small site lists ${#spaths[@]} files: ${spaths[*]}" >&2; exit 1; }
paths big.docs.test | sed 's#^#big.docs.test #' >"$work/big.txt"
stop_serve

coldA=("${domains[@]:0:COLD}")
coldB=("${domains[@]:COLD:COLD}")
loaded=("${domains[@]:2*COLD}")
for d in "${loaded[@]}"; do printf "$d %s\n" "${spaths[@]}"; done >"$work/load.txt"
probe=()
for ((i = 0; i < ${#loaded[@]}; i += 10)); do probe+=("${loaded[i]}"); done
for d in "${probe[@]}"; do printf "$d %s\n" "${spaths[@]}"; done >"$work/probe.txt"
# A pass's curl requests every line of a list once, one after the other.
for l in load probe big; do
	{
		echo 'silent'
		echo 'write-out = "%{http_code} %{time_total} %{size_download}\n"'
		echo "connect-to = \"::127.0.0.1:$PORT\""
		awk -v port="$PORT" '{ printf "url = \"http://%s:%s%s\"\noutput = \"/dev/null\"\n", $1, port, $2 }' "$work/$l.txt"
	} >"$work/$l.cfg"
done

# pass LIST: requests every file of a list (load: the loaded sites';
# probe: those of every tenth of them; big: the big site's) once; sets
# PASS_N, PASS_P50 (ms), PASS_BYTES (the bodies' sizes) and PASS_READ
# (bytes serve read meanwhile).
pass() {
	local r0 out
	r0=$(rchar "$SPID")
	out=$(curl -K "$work/$1.cfg")
	PASS_READ=$(($(rchar "$SPID") - r0))
	pass_check "$out"
}
pass_check() { # OUTPUT: checks every answer was 200; sets PASS_N, PASS_P50 and PASS_BYTES.
	if echo "$1" | awk '$1 != 200 { bad = 1 } END { exit !bad }'; then
		echo "a pass over the sites got answers other than 200: $(echo "$1" | awk '$1 != 200' | sort | uniq -c | head -3)" >&2; exit 1
	fi
	PASS_N=$(echo "$1" | wc -l)
	mapfile -t _ms < <(echo "$1" | awk '{ printf "%.3f\n", $2 * 1000 }')
	PASS_P50=$(pct 50 "${_ms[@]}")
	PASS_BYTES=$(echo "$1" | awk '{ s += $3 } END { print s }')
}
# hot: a probe pass; prints the share of the probed bytes served from
# memory, from the bytes read beyond those of the reference pass PROBE_REF.
hot() {
	pass probe
	awk -v r="$((PASS_READ - PROBE_REF))" -v t="$PROBE_BYTES" 'BEGIN { if (r < 0) r = 0; printf "%.0f%% (%.1f MB read from the blob folder)", 100 * (1 - r / t), r / 1e6 }'
}
# load LIST: wrk across a list (load or big); sets RPS, P99 and LOAD_READ
# (bytes serve read meanwhile).
load() {
	local r0
	r0=$(rchar "$SPID")
	wrk_load -s bench/tenants.lua "$API" -- "$work/$1.txt"
	LOAD_READ=$(($(rchar "$SPID") - r0))
}
# cold DOMAIN...: the first request of $PAGE on each, one curl each.
cold() {
	local t=() ms
	for d in "$@"; do
		ms=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H "Host: $d" "$API$PAGE" |
			awk '$1 != 200 { exit 1 } { printf "%.1f", $2 * 1000 }') ||
			{ echo "the first request to $d did not answer 200" >&2; exit 1; }
		t+=("$ms")
	done
	printf 'median %s ms, p95 %s ms, max %s ms (%d sites)\n' "$(pct 50 "${t[@]}")" "$(pct 95 "${t[@]}")" "$(maxof "${t[@]}")" "$#"
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
mem() { echo "$(vm_mb "$SPID" VmRSS) MB (peak $(vm_mb "$SPID" VmHWM) MB)"; }

echo
echo "## --site-cache-size at its default (256MiB; one site at most a quarter)"
echo
start_serve
echo "serve's resident memory after a restart: $(vm_mb "$SPID" VmRSS) MB (its garbage collector's target: GOGC=$(curl -s "$API/metrics" | awk '$1 == "go_gc_gogc_percent" { print $2 }'))"
echo "cold site, first request of $PAGE right after the restart: $(cold "${coldA[@]}")"
pass load
echo "load: ${#loaded[@]} sites x ${#spaths[@]} files, $(mb "$PASS_BYTES") MB in all ($((PASS_BYTES / ${#loaded[@]} / 1000)) KB a site); a first pass over them (each file read from the blob folder) read $(mb "$PASS_READ") MB"
load load
echo "load across ${#loaded[@]} sites: $RPS req/s, p99 $P99 ms, $(mb "$LOAD_READ") MB read meanwhile (with the requests themselves); serve's resident memory after: $(mem)"
echo "cold site, first request of $PAGE after the load: $(cold "${coldB[@]}")"

# Fairness: the probe's reference, with every probed file in memory.
pass probe
pass probe
PROBE_REF=$PASS_READ PROBE_BYTES=$PASS_BYTES p50=$PASS_P50
(
	while [ ! -e "$work/stop" ]; do
		curl -K "$work/load.cfg" >>"$work/during.txt" &
		echo $! >"$work/passer.pid"
		wait $! || true
	done
) &
passer=$!
load big
touch "$work/stop"
kill "$(cat "$work/passer.pid")" 2>/dev/null || true
wait "$passer"
rm -f "$work/stop"
hrps=$RPS hp99=$P99
pass_check "$(cat "$work/during.txt")"
during_p50=$PASS_P50 during_n=$PASS_N
probed=$(hot)
pass big
echo
echo "fairness: big.docs.test hammered over its $(wc -l <"$work/big.txt") pages ($(mb "$PASS_BYTES") MB; a site keeps at most a quarter of the cache, 67.1 MB) while passes over the ${#loaded[@]} other sites ran beside it"
echo "  big.docs.test: $hrps req/s, p99 $hp99 ms"
echo "  the other sites, p50 of a request: $p50 ms before, $during_p50 ms during ($during_n requests; the hammering takes the CPUs)"
echo "  after it, of the files of every tenth other site (${#probe[@]} sites, $(mb "$PROBE_BYTES") MB), served from memory: $probed"
echo "serve's resident memory after: $(mem)"
stop_serve

echo
echo "## --site-cache-size $SMALL_CACHE"
echo
start_serve --site-cache-size "$SMALL_CACHE"
pass load
load load
echo "load across ${#loaded[@]} sites: $RPS req/s, p99 $P99 ms, $(mb "$LOAD_READ") MB read meanwhile (with the requests themselves); serve's resident memory after: $(mem)"
echo "  then, of the files of every tenth site, served from memory: $(hot)"
load big
echo "then big.docs.test hammered: $RPS req/s, p99 $P99 ms; serve's resident memory after: $(mem)"
stop_serve
